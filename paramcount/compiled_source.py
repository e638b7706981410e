"""The table of a compiled count (paramcount.compiled): an architecture's formula tree written as
plain data (:mod:`paramcount.exprdata`: integers, names, and the few operations a count uses),
from SymPy. Only generating imports SymPy (inside the functions); the fast path only imports this
module to name :func:`generate`."""

from __future__ import annotations

from paramcount import cache, exprdata

__all__ = ["FORMAT", "generate"]

FORMAT = 3  # bump when the table's shape changes


# --- generation (SymPy) --------------------------------------------------------------------------
def _names(expr) -> list[str]:
    import sympy

    return sorted(s.name for s in sympy.sympify(expr).free_symbols)


def generate(arch) -> dict:
    """``arch``'s compiled count (an Architecture of the registry): a table of plain data."""
    import sympy

    from paramcount.context import EMBEDDING_KINDS, rule_applies
    from paramcount.hparams import Divisible, Relation
    from paramcount.render import component_label

    f = arch.formula
    syms = sorted({s.name for s in (*arch.required, *arch.optional, *arch.fixed)})
    # The breakdown rows, exactly as render.count_rows forms them.
    row_meta, row_exprs = [], []
    mults: dict[str, sympy.Expr] = {}
    for path, depth, term in f.walk():
        mult = mults.get(path.rpartition(".")[0], sympy.Integer(1)) * term.times
        mults[path] = mult
        if depth:
            row_meta.append((depth, component_label(term)))
            row_exprs.append(mult * term.per_instance())
    # The nested components, exactly as Term.breakdown forms them.
    comp_exprs: list = []

    def nested(term, mult) -> dict:
        out: dict[str, object] = {}
        for child in term.children:
            m = mult * child.times
            if child.is_leaf:
                out[child.name] = len(comp_exprs)
                comp_exprs.append(m * child.expr)
            else:
                out[child.name] = nested(child, m)
        return out

    comp_shape = nested(f, sympy.Integer(1))
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
    digest = cache.key(sympy.srepr(f.total()), [sympy.srepr(e) for e in row_exprs + comp_exprs],
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
        "presets": presets, "rows": [list(r) for r in row_meta], "components": comp_shape,
        "has_active": bool(f.has_active), "rule_applies": bool(rule_applies(arch)),
        "checked_by": list(arch.checked_by),
        "defaults": [[s.name, _names(e), _enc(e)] for s, e in defaults],
        "constraints": cons,
        "row_exprs": [_enc(e) for e in row_exprs],
        "component_exprs": [_enc(e) for e in comp_exprs],
        "embedding_exprs": [_enc(e) for e in emb],
        "total_exprs": [_enc(e) for e in totals],
    }


def _enc(expr):
    import sympy

    return exprdata.encode(sympy.sympify(expr))


def _flag(name: str) -> bool:
    from paramcount import symbols

    return symbols.info(name).flag


def _zero_ok(name: str) -> bool:  # a count that may be 0 (layers of one kind in a mixed stack)
    from paramcount import symbols

    return symbols.info(name).zero_ok
