"""``count`` without SymPy: each architecture's formula tree compiled to integer arithmetic
(the command line's side of it, reading ``count``'s arguments and printing, is
:mod:`paramcount.cli.fast`).

Importing SymPy costs more than everything else ``paramcount count`` does. So the first count of
an architecture (through SymPy, :func:`paramcount.analyze.counting.counted`) also writes that architecture's tree as
a table of data — hyperparameter roles, defaults, constraints, presets, the breakdown's labels
and every count it shows as expressions of integer coefficients (:mod:`paramcount.core.exprdata`) —
to the on-disk cache (:mod:`paramcount.runtime.cache`); later counts read that table with a fixed
evaluator and never import SymPy. Nothing in the cache is run: an entry is JSON, checked against
its digest, and anything but the table this version writes is a miss.

**Why a cache entry and not a generated module in the package.** The key must be computable
without building the tree (building it is what costs), and it must change whenever the tree could:
it is a digest of paramcount's own sources and presets (:func:`paramcount.runtime.cache.source_fingerprint`,
the package version included), so an edited formula can never be answered from a stale entry,
and nobody has to remember to regenerate a committed file. Where the cache cannot be written
(read-only home), ``count`` stays correct and runs through SymPy.

**One numeric core, same answers, same errors.** Reading ``count``'s command line (its options
declared once, :func:`paramcount.core.numcore.add_count_arguments`), reading integers, checking values,
filling in defaults, deciding constraints and forming the breakdown from integers are
:mod:`paramcount.core.numcore`'s, which the SymPy path calls too; what is here is only the table's
arithmetic. The compiled path answers presets and examples of the packaged architectures with
``--set`` on top and *defers* on anything else: ``--config``, ``--framework``, ``--checkpoint``,
plugins, any error (an unknown name or preset, a value out of its domain, a violated constraint, a
non-integer default). Deferring means running the ordinary (SymPy) command, so every error
message and exit status is that path's own, by construction. Tests check that both evaluators
give the same output for every preset, every example set and random sets.

Division is exact: the evaluator keeps integers where the quotient is whole and falls back to
:class:`fractions.Fraction` otherwise; a count that is not a whole number defers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from paramcount.analyze.counting.table import FORMAT, generate
from paramcount.core import numcore
from paramcount.core.errors import ParamcountError
from paramcount.core.exprdata import value
from paramcount.runtime import cache

__all__ = ["Defer", "broken", "evaluate", "generate", "load", "resolve", "store"]

KIND = "count"


class Defer(Exception):
    """The compiled path cannot answer this input exactly as the SymPy path would: use that."""


def store(arch) -> bool:
    """Compile ``arch`` into the cache (best effort: False when it cannot be stored)."""
    try:
        table = generate(arch)
    except NotImplementedError:
        return False
    if cache.put_json(KIND, _digest(arch.id), table) is None:
        return False
    cache.prune(KIND, 1000)  # each edit of paramcount's sources keys new entries
    return True


# --- evaluation (no SymPy) -----------------------------------------------------------------------
def _digest(arch_id: str) -> str:
    return cache.key(FORMAT, cache.source_fingerprint(), arch_id)


def load(arch_id: str) -> dict | None:
    """The compiled table of ``arch_id``, or None when not (yet, or not intact) in the cache."""
    table = cache.get_json(KIND, _digest(arch_id))
    if not isinstance(table, dict) or table.get("format") != FORMAT or table.get("id") != arch_id:
        return None
    return table


class _Domain(NamedTuple):  # numcore.Domain from the table (a message needing more defers)
    flag: bool
    zero_ok: bool
    description: str = ""


def symbols_of(ns: dict) -> set[str]:
    """Every hyperparameter a compiled table knows."""
    return {*ns["required"], *ns["optional"], *ns["fixed"]}


def broken(constraints: list, values: Mapping[str, int]) -> bool:
    """Whether ``values`` break one of a table's ``constraints`` (each checked once every symbol
    it reads has a value)."""
    for kind, op, deps, when, lhs, rhs in constraints:
        if not all(d in values for d in deps):
            continue
        w = 1 if when is None else (value(when[1], values) if all(d in values for d in when[0])
                                    else None)
        if numcore.unmet(kind, value(lhs, values), value(rhs, values), op or "", w):
            return True
    return False


def resolve(ns: dict, given: Mapping[str, int]) -> dict[str, int]:
    """:func:`paramcount.core.numcore.resolve` over the table: the complete set, or Defer where the
    SymPy path raises (its message is that path's)."""
    known = symbols_of(ns)
    defaults = {name: (deps, expr) for name, deps, expr in ns["defaults"]}

    def info(name: str) -> _Domain:
        if name not in known:
            raise Defer(name)
        return _Domain(name in ns["flags"], name in ns["zero_ok"])

    def default(name: str, values: Mapping[str, int]) -> int | None:
        deps, expr = defaults[name]
        if not all(d in values for d in deps):
            return None
        x = value(expr, values)
        if not numcore.whole(x):
            raise Defer(f"{name} is not an integer")
        return int(x)

    def check(values: Mapping[str, int]) -> None:
        if broken(ns["constraints"], values):
            raise Defer("constrained")

    def fixed_text(name: str, _value: int) -> str:
        raise Defer(f"{name} is fixed")

    try:
        return numcore.resolve(ns["id"], given, required=ns["required"], optional=ns["optional"],
                               fixed=ns["fixed"], info=info, default=default, check=check,
                               fixed_text=fixed_text)
    except (ParamcountError, ValueError) as exc:
        raise Defer(str(exc)) from None


def evaluate(ns: dict, hparams: Mapping[str, int], name: str | None = None):
    """A resolved set's :class:`~paramcount.analyze.counting.Counted`, from the compiled table."""
    from paramcount.analyze.context import context_of
    from paramcount.analyze.counting import Counted

    V = dict(hparams)

    def ints(exprs) -> list[int]:
        out = [value(e, V) for e in exprs]
        if not all(numcore.whole(x) for x in out):
            raise Defer("not an integer")
        return [int(x) for x in out]

    try:
        counts = numcore.node_counts([p for p, _, _ in ns["nodes"]],
                                     [value(e, V) for e in ns["times_exprs"]],
                                     [value(e, V) for e in ns["own_exprs"]])
    except ValueError as exc:  # a node that is not a whole number: the SymPy path says so
        raise Defer(str(exc)) from None
    rows = tuple((d, label, counts[i]) for i, (_, d, label) in enumerate(ns["nodes"]) if d)
    totals = ints(ns["total_exprs"])
    trainable, frozen, everything = totals[:3]
    emb = sum(ints(ns["embedding_exprs"]))
    active = totals[3] if ns["has_active"] else None
    ctx = context_of(everything, trainable, emb, ns["rule_applies"], hparams)
    return Counted(ns["id"], name, dict(hparams), rows, numcore.nested(ns["components"], counts),
                   trainable, frozen, active, ctx)
