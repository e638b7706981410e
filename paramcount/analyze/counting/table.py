"""The table of a compiled count (:mod:`paramcount.analyze.counting.compiled`): an architecture's
formula tree written as plain data (:mod:`paramcount.core.exprdata`: integers, names, and the few
operations a count uses), from SymPy. Only generating imports SymPy (inside the functions); the
fast path only imports this module to name :func:`generate`."""

from __future__ import annotations

from paramcount.core import exprdata
from paramcount.runtime import cache

__all__ = ["FORMAT", "generate", "hparam_table", "tree_table"]

FORMAT = 6  # bump when the table's shape changes (5: exprdata's "min"; the costs' tables;
#            6: the KV cache's per-head convention)


# --- generation (SymPy) --------------------------------------------------------------------------
def _names(expr) -> list[str]:
    import sympy

    return sorted(s.name for s in sympy.sympify(expr).free_symbols)


def tree_table(f) -> dict:
    """A formula tree (:class:`paramcount.core.formula.Term`) as data: its nodes (parent, depth,
    the breakdown's label), the nested components' shape, and each node's multiplicity and
    per-instance value as expressions. :func:`paramcount.core.numcore.node_counts` forms the rows
    and the nested components from their values, for both evaluators."""
    from paramcount.analyze.counting import component_label

    nodes = f.nodes()
    return {"nodes": [[parent, depth, component_label(term) if depth else ""]
                      for parent, depth, term in nodes],
            "components": f.shape(),
            "times_exprs": [_enc(t.times) for _, _, t in nodes],
            "own_exprs": [_enc(t.per_instance()) for _, _, t in nodes]}


def hparam_table(arch) -> dict:
    """``arch``'s hyperparameters as data: their roles, domains, defaults and constraints (what
    :func:`paramcount.analyze.counting.compiled.resolve` reads)."""
    from paramcount.core.hparams import Divisible, Relation

    syms = sorted({s.name for s in (*arch.required, *arch.optional, *arch.fixed)})
    defaults = [*((s, e) for s, e in arch.optional.items()), *arch.fixed.items()]
    cons: list[list] = []
    # the notes too: the compiled count defers a set that breaks one to the full path, which
    # counts it and prints the note
    for c in (*arch.constraints, *(r.constraint for r in getattr(arch, "notes", ()))):
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
        "id": arch.id,
        "required": [s.name for s in arch.required], "optional": [s.name for s in arch.optional],
        "fixed": [s.name for s in arch.fixed],
        "flags": sorted(n for n in syms if _flag(n)),
        "zero_ok": sorted(n for n in syms if _zero_ok(n)),
        "defaults": [[s.name, _names(e), _enc(e)] for s, e in defaults],
        "constraints": cons,
    }


def generate(arch) -> dict:
    """``arch``'s compiled count (an Architecture of the registry): a table of plain data."""
    import sympy

    from paramcount.analyze.context import EMBEDDING_KINDS, rule_applies

    f = arch.formula
    nodes = f.nodes()
    emb = [lf.expr for lf in f.leaves() if lf.term.trainable and lf.kind in EMBEDDING_KINDS]
    totals = [f.trainable_total(True), f.trainable_total(False), f.total()]
    if f.has_active:
        totals.append(f.active_total())

    presets = {p.name: dict(p.hparams) for p in arch.presets_table().values()}
    for name, hp in arch.examples.items():
        presets.setdefault(name, dict(hp))  # arch.preset(): the presets' table first
    defaults = [*arch.optional.values(), *arch.fixed.values()]
    digest = cache.key(sympy.srepr(f.total()),
                       [sympy.srepr(e) for e in [t.times for _, _, t in nodes]
                        + [t.per_instance() for _, _, t in nodes]],
                       [sympy.srepr(e) for e in defaults])
    return {
        "format": FORMAT, "tree": digest, **hparam_table(arch),
        "presets": presets, **tree_table(f),
        "has_active": bool(f.has_active), "rule_applies": bool(rule_applies(arch)),
        "checked_by": list(arch.checked_by),
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
