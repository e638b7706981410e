"""One option case of an architecture, parametrized so that every point is a valid set."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import sympy

from paramcount.core import symbols
from paramcount.core.errors import ParamcountError

if TYPE_CHECKING:
    from paramcount.model.registry import Architecture

MARGIN = 1  # Keras' assumed degree in each parameter: the formula's + MARGIN
UNCLAIMED = "(unclaimed Keras weights)"
SEED = "paramcount-prove-1"  # the draws are seeded: the same outcome on every run


class UnsupportedError(ParamcountError):
    """An architecture whose constraints or formula the prover cannot parametrize."""


@dataclass(frozen=True)
class Case:
    """One option case of an architecture, parametrized so every point is valid."""

    arch: Architecture
    flags: tuple[tuple[str, int], ...]
    free: tuple[sympy.Symbol, ...]
    structural: frozenset[sympy.Symbol]
    given: Mapping[sympy.Symbol, sympy.Expr]  # settable non-flag symbol -> expr in ``free``
    inverse: Mapping[sympy.Symbol, sympy.Expr]  # fresh parameter -> expr in original symbols
    formula: Mapping[str, sympy.Expr]  # leaf path -> polynomial in ``free``
    degrees: Mapping[sympy.Symbol, int]  # the formula's degree in each free parameter
    notes: tuple[str, ...] = ()
    conditions: tuple[str, ...] = ()  # sub-case conditions (d_emb ≠ d_e, d_k ≡ 1 mod 2)
    unequal: tuple[tuple[sympy.Expr, sympy.Expr], ...] = ()  # points must keep these apart
    checks: tuple[tuple, ...] = ()  # the conditions in the original symbols (for case_of)

    @property
    def label(self) -> str:
        parts = [f"{k}={v}" for k, v in self.flags] + list(self.conditions)
        return ", ".join(parts) or "(no options)"

    def admits(self, point: Mapping[sympy.Symbol, int]) -> bool:
        vals = {k: sympy.Integer(v) for k, v in point.items()}
        return all(a.xreplace(vals) != b.xreplace(vals) for a, b in self.unequal)

    def bound(self, x: sympy.Symbol) -> int:
        """δ_x: the assumed bound on Keras' degree in ``x``."""
        return self.degrees.get(x, 0) + MARGIN

    def hparams(self, point: Mapping[sympy.Symbol, int]) -> dict[str, int]:
        vals = {k: sympy.Integer(v) for k, v in point.items()}
        out = {s.name: int(e.xreplace(vals)) for s, e in self.given.items()}
        out.update(dict(self.flags))
        return out

    def to_original(self, expr: sympy.Expr) -> sympy.Expr:
        # A remainder case's parameters mean floor(a/b) and Mod(a, b): written as a − b·floor(a/b),
        # b·floor(a/b) + Mod(a, b) cancels back to a (L·d_e, not L·M·floor(d_e/M) + L·Mod(d_e, M)).
        e = sympy.sympify(expr).xreplace(dict(self.inverse))
        return sympy.expand(e.replace(sympy.Mod, lambda a, b: a - b * sympy.floor(a / b)))

    def rng(self, salt: str) -> random.Random:
        """This case's seeded random source for one purpose (``salt``)."""
        return random.Random(f"{SEED}:{self.arch.id}:{self.label}:{salt}")

    def meets(self, hparams: Mapping[str, int]) -> bool:
        """Whether a hyperparameter set meets this sub-case's conditions."""
        vals = {symbols.get(k): sympy.Integer(v) for k, v in hparams.items()}
        for kind, a, *rest in self.checks:
            av = a.xreplace(vals)
            if kind in ("square", "nonsquare"):
                ok = av.is_Integer and av >= 0 and \
                    (math.isqrt(int(av)) ** 2 == int(av)) == (kind == "square")
            elif kind == "mod":
                ok = av.is_Integer and int(av) % rest[0] == rest[1]
            elif kind in ("divides", "remainder"):
                bv = rest[0].xreplace(vals)
                ok = av.is_Integer and bv.is_Integer and \
                    (int(av) % int(bv) == 0) == (kind == "divides")
            else:
                equal = av == rest[0].xreplace(vals)
                ok = equal if kind == "eq" else not equal
            if not ok:
                return False
        return True


def layer_counts(arch: Architecture) -> set[sympy.Symbol]:
    """Layer counts, always structural: the paper's ``L`` and ``L_*`` symbols (L_enc, L_dec,
    ALBERT's L_g and L_r ...). Shared layers (ALBERT) add no weight but still one call each.
    A cost's context T and batch B too (paramcount.model.cost): interpolated at small nodes, so
    the widths may take large random values without a B·M·T·T tensor overflowing torch's sizes."""
    return {s for s in arch.settable if re.fullmatch(r"L(_\w+)?|T|B", s.name)
            and not symbols.info(s).flag}


def structural_symbols(arch: Architecture) -> set[sympy.Symbol]:
    """*Candidate* structural hyperparameters: the layer counts and every symbol in a ``times``
    (or ``active_times``) of the tree. :func:`paramcount.analyze.prove.decide.classify` keeps the layer
    counts and those other candidates that change the number of Keras weights, measured."""
    out: set[sympy.Symbol] = set(layer_counts(arch))
    for _, _, term in arch.formula.walk():
        out |= term.times.free_symbols
        if term.active_times is not None:
            out |= term.active_times.free_symbols
    return {s for s in out if not symbols.info(s).flag}


def is_poly(expr: sympy.Expr, gens: Sequence[sympy.Symbol]) -> bool:
    return sympy.sympify(expr).is_polynomial(*gens) if gens else sympy.sympify(expr).is_number


def integer_poly(expr: sympy.Expr, gens: Sequence[sympy.Symbol]) -> bool:
    expr = sympy.cancel(sympy.sympify(expr))
    if not is_poly(expr, gens):
        return False
    if not gens:
        return expr.is_Integer
    return all(c.is_Integer for c in sympy.Poly(expr, *gens).coeffs())
