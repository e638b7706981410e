"""``count``'s fast path on the command line: ``count ARCH [--preset NAME] [--set ...] [--json]``
answered from the compiled table (:mod:`paramcount.analyze.counting.compiled`) without importing
SymPy, and formatted by :mod:`paramcount.output.count_output`, as the full command would. Anything
else defers to the full command line (:mod:`paramcount.cli.main`)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence

from paramcount.analyze.counting.compiled import Defer, evaluate, load, resolve, store, symbols_of
from paramcount.core import numcore
from paramcount.core.errors import ParamcountError
from paramcount.runtime import cache

__all__ = ["parse", "remember", "try_count"]


def parse(argv: Sequence[str]) -> tuple[str, str | None, list[str], bool] | None:
    """``count ARCH [--preset NAME] [--set SYM=VALUE ...] [--json]`` read by ``count``'s own
    argument spec, or None for anything this path leaves to the full command line (another
    command, an abbreviated option, help, ``--config``, ``--framework``, ``--checkpoint``,
    ``--plugin``, ``--verbose``, ``--no-cache``, a usage error)."""
    if not argv or argv[0] != "count" or "--" in argv or "--no-cache" in argv:
        return None  # (--no-cache: computed afresh, the compiled table neither read nor written)
    from paramcount.cli.common import Once, Parser

    parser = Parser(prog="paramcount count", add_help=False, allow_abbrev=False,
                     formatter_class=numcore.FixedWidth)
    numcore.add_count_arguments(parser, Once)
    try:
        args = parser.parse_args(list(argv[1:]))
    except ParamcountError:
        return None
    if args.arch is None or args.config or args.framework or args.checkpoint or args.context \
            or args.batch or args.dtype:
        return None
    if not args.preset and not args.set:
        return None
    return args.arch, args.preset or None, list(args.set or ()), bool(args.json)


def try_count(argv: Sequence[str]) -> str | None:
    """The output of ``paramcount <argv>`` when the compiled path can give it, else None."""
    parsed = parse(argv)
    if parsed is None or os.environ.get("PARAMCOUNT_PLUGINS", "").strip():
        return None
    arch_id, preset, sets, as_json = parsed
    ns = load(arch_id)
    if ns is None:
        return None
    try:
        if "keras" not in ns["checked_by"]:
            return None  # a model only transformers builds: count says so (the SymPy path)
        given: dict[str, int] = {}
        name = None
        if preset is not None:
            if preset not in ns["presets"]:
                raise Defer(preset)
            given.update(ns["presets"][preset])
            name = preset
        if sets:
            known = symbols_of(ns)

            def symbol(n: str) -> None:
                if n not in known:
                    raise Defer(n)

            given.update(numcore.parse_assignments(sets, symbol))
        name = numcore.set_name(name, bool(sets))
        hp = resolve(ns, given)
        counted = evaluate(ns, hp, name)
    except Defer:
        return None
    except Exception:  # not the table this version writes: the SymPy path answers, and rewrites it
        return None
    from paramcount.output import count_output

    if as_json:
        import json

        out = count_output.count_json(counted)
        out["checked_by"] = list(ns["checked_by"])  # as cli.cmd_count adds it
        return json.dumps(out, indent=2) + "\n"
    return count_output.count_text(counted) + "\n"


def remember(argv: Sequence[str]) -> None:
    """After the full command line answered ``argv``: compile its architecture for next time,
    where the compiled path would read it (best effort: compiling never fails a count)."""
    parsed = parse(argv)
    if parsed is None or os.environ.get("PARAMCOUNT_PLUGINS", "").strip() or not cache.enabled():
        return
    from paramcount.model import registry

    with contextlib.suppress(Exception):
        store(registry.get(parsed[0]))

