"""The table of a compiled count (:mod:`paramcount.analyze.counting.compiled`): an architecture's
formula tree written as plain data (:mod:`paramcount.core.exprdata`: integers, names, and the few
operations a count uses), from SymPy. Only generating imports SymPy (inside the functions); the
fast path only imports this module to name :func:`generate`."""

from __future__ import annotations

from paramcount.core import exprdata
from paramcount.runtime import cache

__all__ = ["FORMAT", "generate"]

FORMAT = 4  # bump when the table's shape changes


# --- generation (SymPy) --------------------------------------------------------------------------
def _names(expr) -> list[str]:
    import sympy

    return sorted(s.name for s in sympy.sympify(expr).free_symbols)


def generate(arch) -> dict:
    """``arch``'s compiled count (an Architecture of the registry): a table of plain data."""
    import sympy

    from paramcount.analyze.context import EMBEDDING_KINDS, rule_applies
    from paramcount.analyze.counting import component_label
    from paramcount.core.hparams import Divisible, Relation

    f = arch.formula
    syms = sorted({s.name for s in (*arch.required, *arch.optional, *arch.fixed)})
    # The tree's nodes, each with its multiplicity and per-instance count: numcore.node_counts
    # forms the rows and the nested components from their values, for both evaluators.
    nodes = f.nodes()
    node_rows = [[parent, depth, component_label(term) if depth else ""]
                 for parent, depth, term in nodes]
    times_exprs = [t.times for _, _, t in nodes]
    own_exprs = [t.per_instance() for _, _, t in nodes]
    comp_shape = f.shape()
    emb = [lf.expr for lf in f.leaves() if lf.term.trainable and lf.kind in EMBEDDING_KINDS]
    totals = [f.trainable_total(True), f.trainable_total(False), f.total()]
    if f.has_active:
        totals.append(f.active_total())

    presets = {p.name: dict(p.hparams) for p in arch.presets_table().values()}
    for name, hp in arch.examples.items():
        presets.setdefault(name, dict(hp))  # arch.preset(): the presets' table first
    flags = sorted(n for n in syms if _flag(n))
    zero_ok = sorted(n for n in syms if _zero_ok(n))
    defaults = [*((s, e) for s, e in arch.optional.items()), *arch.fixed.items()]
    digest = cache.key(sympy.srepr(f.total()), [sympy.srepr(e) for e in times_exprs + own_exprs],
                       [sympy.srepr(e) for _, e in defaults])

    cons: list[list] = []
    for c in arch.constraints:
        if isinstance(c, Divisible):
            cons.append(["div", None, _names(c.dividend) + _names(c.divisor), None,
                         _enc(c.dividend), _enc(c.divisor)])
        elif isinstance(c, Relation):
            when = None if c.when is None else [_names(c.when), _enc(c.when)]
            cons.append(["rel", c.op, _names(c.lhs) + _names(c.rhs), when, _enc(c.lhs),
                         _enc(c.rhs)])
        else:
            raise NotImplementedError(f"cannot compile constraint {type(c).__name__}")
    return {
        "format": FORMAT, "id": arch.id, "tree": digest,
        "required": [s.name for s in arch.required], "optional": [s.name for s in arch.optional],
        "fixed": [s.name for s in arch.fixed], "flags": flags, "zero_ok": zero_ok,
        "presets": presets, "nodes": node_rows, "components": comp_shape,
        "has_active": bool(f.has_active), "rule_applies": bool(rule_applies(arch)),
        "checked_by": list(arch.checked_by),
        "defaults": [[s.name, _names(e), _enc(e)] for s, e in defaults],
        "constraints": cons,
        "times_exprs": [_enc(e) for e in times_exprs],
        "own_exprs": [_enc(e) for e in own_exprs],
        "embedding_exprs": [_enc(e) for e in emb],
        "total_exprs": [_enc(e) for e in totals],
    }


def _enc(expr):
    import sympy

    return exprdata.encode(sympy.sympify(expr))


def _flag(name: str) -> bool:
    from paramcount.core import symbols

    return symbols.info(name).flag


def _zero_ok(name: str) -> bool:  # a count that may be 0 (layers of one kind in a mixed stack)
    from paramcount.core import symbols

    return symbols.info(name).zero_ok
