"""``paramcount derive --model-type NAME --kv`` (or ``--flops``): the KV cache of a transformers
model type (its forward FLOPs) derived from its own forwards and proven
(:mod:`paramcount.analyze.derive_cache`, :mod:`paramcount.analyze.derive_flops`), its formula in
T, B and the config's fields, a window in two regimes, and its figure at ``--context`` and
``--batch``. The work runs in a torch worker and returns a result
(:class:`~paramcount.output.derive_output.DerivedCache`), printed here."""

from __future__ import annotations

import time

from paramcount.cli.common import UsageError, show

__all__ = ["add_options", "cmd_derive_cost"]


def add_options(s) -> None:
    from paramcount.core.numcore import positive_int

    s.add_argument("--kv", action="store_true",
                   help="derive the KV cache instead (with --model-type): the cache a forward of "
                        "B sequences of T tokens returns, in T, B and the config's fields, each "
                        "side of a window its own regime, proven")
    s.add_argument("--flops", action="store_true",
                   help="derive the forward FLOPs instead (with --model-type): torch's "
                        "FlopCounterMode count of a forward of B sequences of T tokens, in T, B "
                        "and the config's fields, proven")
    s.add_argument("--context", type=positive_int, metavar="T", default=None,
                   help="with --kv or --flops: the context of the figure given (default 4096)")
    s.add_argument("--batch", type=positive_int, metavar="B", default=None,
                   help="with --kv or --flops: the batch of the figure given (default 1)")


def cmd_derive_cost(args, refused) -> int:
    """``derive --kv`` or ``--flops``; ``refused``: how derive says a refusal (its line, its
    reasons, JSON)."""
    from paramcount.core.errors import ParamcountError
    from paramcount.output.derive_output import cache_json, cache_text
    from paramcount.runtime import isolate
    from paramcount.runtime.extras import require

    flag, what = ("--flops", "forward FLOPs") if args.flops else ("--kv", "cache")
    if args.kv and args.flops:
        raise UsageError("--kv and --flops are two derivations: give one")
    if not args.model_type:
        raise UsageError(f"{flag} derives a model type's {what} at its config class's defaults: "
                         "give --model-type NAME")
    if args.no_prove or args.emit_plugin:
        raise UsageError(f"{flag} always proves, and emits no plugin")
    require("transformers", "derive")
    at = {"T": args.context or 4096, "B": args.batch or 1}
    quantity = "flops" if args.flops else "kv"
    try:
        r = isolate.call("torch", _cache_here, args.model_type, args.cls, at, args.deadline,
                         quantity)
    except ParamcountError as exc:
        return refused(args, exc)
    show(args.json, r, cache_json, cache_text)
    return 0 if r.proven else 1


def _cache_here(model_type: str, cls: str | None, at: dict, budget, quantity: str = "kv"):
    """(In a torch worker.) The cache (``quantity`` "kv") or the forward FLOPs ("flops") derived
    and proven (from the on-disk cache where it holds them, unless ``--no-cache``), as a
    result."""
    from paramcount.analyze.derive import deadline
    from paramcount.analyze.derive.probe import versions
    from paramcount.analyze.derive_cache import derive_cache
    from paramcount.analyze.derive_flops import SOURCES
    from paramcount.output.derive_output import CacheRegime, DerivedCache

    start = time.perf_counter()
    source = SOURCES[quantity]
    with deadline.until(*budget):
        regimes = derive_cache(model_type, cls, source=source)
    out = []
    for r in regimes:
        d = r.derivation
        why = r.why or ("; ".join(f"{w}: {y}" for w, y in d.failures) if d.failures else "")
        said = tuple(f"{b} divides {a}" if op == "divides" else f"{a} {op} {b}"
                     for op, a, b in d.constraints)
        out.append(CacheRegime(r.label, "" if d.failures else _formula(r), dict(d.fields),
                               tuple(r.cases), why, said))
    proven = all(r.proven for r in regimes)
    held = next((r for r in regimes if r.holds(at["T"])), None)
    return DerivedCache(regimes[0].derivation.cls, versions(), tuple(out), at,
                        held.elements(at) if proven and held is not None else None,
                        time.perf_counter() - start, quantity)


def _formula(r) -> str:
    """A regime's elements as text, in T (past a window, its field written back as T − w + 1)."""
    import sympy

    from paramcount.analyze.derive.tree import architecture, field_symbols
    from paramcount.analyze.derive_cache import BELOW, PAST
    from paramcount.core import symbols
    from paramcount.core.formula import pretty

    d = r.derivation
    total = architecture(d, lambda hp: []).formula.total()
    syms = field_symbols(d)
    if r.window:  # (T is no field past the window, nor the window below it: paramcount's T, and
        # the window as a field of the config declares it)
        t = symbols.info("T").symbol
        w = syms.get(r.window)
        if w is None:  # below the window it is no field: declared as derive declares fields
            try:
                w = symbols.declare(r.window, f"transformers config field {r.window}",
                                    redeclare=True)
            except ValueError:  # a symbol of paramcount's own vocabulary: its declaration holds
                w = symbols.info(r.window).symbol
        total = total.subs({s: (t - w + 1 if n == PAST else w - t) for n, s in syms.items()
                            if n in (PAST, BELOW)})
    return pretty(sympy.factor(sympy.expand(total)))
