"""``count``'s fast path on the command line: ``count ARCH [--preset NAME] [--set ...] [--json]``
answered from the compiled table (:mod:`paramcount.analyze.counting.compiled`) without importing
SymPy, and formatted by :mod:`paramcount.output.count_output`, as the full command would; with
``--context T [--batch B] [--dtype D]`` its memory and compute too, from the compiled costs
(:mod:`paramcount.analyze.counting.compiled_costs`), formatted by
:mod:`paramcount.output.cost_output`. Anything else defers to the full command line
(:mod:`paramcount.cli.main`)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from paramcount.analyze.counting.compiled import Defer, evaluate, load, resolve, store, symbols_of
from paramcount.analyze.counting.compiled_costs import evaluate_costs, load_costs, store_costs
from paramcount.core import numcore
from paramcount.core.errors import ParamcountError
from paramcount.runtime import cache

if TYPE_CHECKING:
    pass

__all__ = ["ContextArgs", "parse", "parse_costs", "remember", "try_count"]


class ContextArgs(NamedTuple):
    """``--context T [--batch B] [--dtype D]`` as read."""

    context: int
    batch: int | None
    dtype: str | None


def _read(argv: Sequence[str]):
    """``count``'s arguments read by its own argument spec, or None for anything this path leaves
    to the full command line (another command, an abbreviated option, help, ``--config``,
    ``--framework``, ``--checkpoint``, ``--plugin``, ``--verbose``, ``--no-cache``, a usage
    error, ``--batch`` or ``--dtype`` without ``--context``)."""
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
    if args.arch is None or args.config or args.framework or args.checkpoint:
        return None
    if not args.preset and not args.set:
        return None
    if args.context is None and (args.batch is not None or args.dtype is not None):
        return None  # a usage error: the full command line's message
    return args


def parse(argv: Sequence[str]) -> tuple[str, str | None, list[str], bool] | None:
    """``count ARCH [--preset NAME] [--set SYM=VALUE ...] [--json]`` read by ``count``'s own
    argument spec, or None for anything else (``--context``: :func:`parse_costs`)."""
    parsed = parse_costs(argv)
    return None if parsed is None or parsed[1] is not None else parsed[0]


def parse_costs(argv: Sequence[str]
                ) -> tuple[tuple[str, str | None, list[str], bool], ContextArgs | None] | None:
    """:func:`parse`'s reading and, with ``--context T [--batch B] [--dtype D]``, those (else
    None); None for anything this path leaves to the full command line."""
    args = _read(argv)
    if args is None:
        return None
    costs = None if args.context is None else ContextArgs(args.context, args.batch, args.dtype)
    return (args.arch, args.preset or None, list(args.set or ()), bool(args.json)), costs


def try_count(argv: Sequence[str]) -> str | None:
    """The output of ``paramcount <argv>`` when the compiled path can give it, else None."""
    parsed = parse_costs(argv)
    if parsed is None or os.environ.get("PARAMCOUNT_PLUGINS", "").strip():
        return None
    (arch_id, preset, sets, as_json), wanted = parsed
    ns = load(arch_id)
    if ns is None:
        return None
    cns = None
    if wanted is not None and (cns := load_costs(arch_id)) is None:
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
        costs = None
        if wanted is not None and cns is not None:
            from paramcount.model import dtypes

            costs = evaluate_costs(cns, hp, preset, wanted.context, wanted.batch or 1,
                                   dtypes.get(wanted.dtype or "bf16"),
                                   counted.total + counted.nontrainable)  # every weight held
    except Defer:
        return None
    except Exception:  # not the table this version writes: the SymPy path answers, and rewrites it
        return None
    from paramcount.output import count_output

    # as paramcount.output.count_result renders a keras-checked count without a config file
    if as_json:
        import json

        out = count_output.count_json(counted)
        out["checked_by"] = list(ns["checked_by"])  # as cli.cmd_count adds it
        if costs is not None:
            from paramcount.output.cost_output import cost_json

            out["costs"] = cost_json(costs)
        return json.dumps(out, indent=2) + "\n"
    lines = [count_output.count_text(counted)]
    if costs is not None:
        from paramcount.output.cost_output import cost_lines

        lines += cost_lines(costs)
    return "\n".join(lines) + "\n"


def remember(argv: Sequence[str]) -> None:
    """After the full command line answered ``argv``: compile its architecture for next time,
    where the compiled path would read it, its costs too after ``--context`` (best effort:
    compiling never fails a count)."""
    parsed = parse_costs(argv)
    if parsed is None or os.environ.get("PARAMCOUNT_PLUGINS", "").strip() or not cache.enabled():
        return
    from paramcount.model import registry

    arch_id = parsed[0][0]
    with contextlib.suppress(Exception):
        arch = registry.get(arch_id)
        if load(arch_id) is None:
            store(arch)
        if parsed[1] is not None and "keras" in arch.checked_by and load_costs(arch_id) is None:
            store_costs(arch)  # (a model only transformers builds: try_count leaves it alone)
