"""A cost tree that is polynomial only piecewise, split into the regimes the prover takes one by
one (:func:`paramcount.analyze.costs.proof`): a window's ``min(T, w − 1)``, a causal
convolution's ``max(T, K_conv)``."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from paramcount.core.errors import ParamcountError

if TYPE_CHECKING:
    from paramcount.model.registry import Architecture

__all__ = ["regimes"]


def regimes(qa: Architecture) -> list[tuple[str, Architecture]]:
    """The proof's cases of a quantity arch whose tree is polynomial only piecewise: a window's
    ``min(T, w − 1)`` is T while T ≤ w − 1 and w − 1 from there on (a causal convolution's
    ``max(T, K_conv)`` the other way round), so each regime is the tree with the one side, under
    a constraint that keeps the points in it (the prover writes it as a substitution: w = T + 1 +
    w', or T = w − 1 + T'). One regime, unlabelled, without a min or a max."""
    import sympy

    from paramcount.core.formula import pretty
    from paramcount.core.hparams import Relation

    kinks = {m for lf in qa.formula.leaves() if lf.term.expr is not None
             for m in lf.term.expr.atoms(sympy.Min, sympy.Max)}
    if not kinks:
        return [("", qa)]
    if len(kinks) > 1:
        raise ParamcountError(f"{qa.id}: several regimes ({', '.join(map(pretty, kinks))}): "
                              "the prover splits one")
    (m,) = kinks
    if len(m.args) != 2:
        raise ParamcountError(f"{qa.id}: cannot split {pretty(m)} for the prover")
    out = []
    for low, high in (m.args, m.args[::-1]):  # where low ≤ high: a min is low, a max high
        # solve low ≤ high for a symbol of ``high`` with coefficient 1: the prover eliminates it
        sym = next((x for x in sorted(high.free_symbols, key=lambda x: x.name)
                    if sympy.expand(high).coeff(x) == 1), None)
        if sym is None:
            raise ParamcountError(f"{qa.id}: cannot split {pretty(m)} for the prover")
        rest = sympy.expand(high - sym)
        kind = "window" if isinstance(m, sympy.Min) else "convolution"
        relation = Relation(sympy.expand(low - rest), "<=", sym,
                            reason=f"{pretty(low)} ≤ {pretty(high)}: the {kind}'s regime")
        side = low if isinstance(m, sympy.Min) else high
        formula = _map_exprs(qa.formula, lambda e, side=side: e.xreplace({m: side}))
        out.append((f"{pretty(low)} ≤ {pretty(high)}", dataclasses.replace(
            qa, formula=formula, constraints=(relation, *qa.constraints))))
    return out


def _map_exprs(term, f):
    if term.is_leaf:
        return dataclasses.replace(term, expr=f(term.expr))
    return dataclasses.replace(term, children=tuple(_map_exprs(c, f) for c in term.children))
