"""Piecewise terms as sub-cases: a KroneckerDelta or a floor splits a case until every formula
term is a polynomial in the free parameters (:func:`paramcount.analyze.prove.parametrize.parametrize`).

- ``floor(A/c)``, c a constant: one sub-case per residue of a parameter of A of degree one
  (``x = c·x' + ρ``, ρ = 0 … c − 1).
- ``floor(A/B)``, B a polynomial in the parameters (``hidden_size // num_attention_heads``; a
  sum with a shared denominator; a denominator a product): two sub-cases, B divides A
  (``A = B·q``) or not (``A = B·q + r``, 0 < r < B). A parameter x of A, absent from B, is
  eliminated; where its coefficient is a constant k > 1 (``4·L'`` after ``L = 4·L' + ρ``), the
  parameters of B (and of A's other terms) are taken as multiples of k first, so that
  ``floor((k·A' + ρ)/(k·B')) = floor(A'/B')``. Where r < B cannot be written over positive
  parameters (B = y + z), r < y is (``y = r + t``).
- ``ceiling(A/B)``: the same sub-cases; it is floor(A/B), plus one where B does not divide A.
- ``floor(√X)``: two sub-cases, X a square (``X = s²``) or not (``X = s² + r``, 1 ≤ r ≤ 2s),
  s = floor(√X) a new parameter; a parameter of X of degree one and coefficient one is
  eliminated, and r is drawn below s (``s = r + t``: a sub-region, as for a floor's remainder).

**Sub-lattices and sub-regions.** Those substitutions sample only part of the sub-case:
multiples of k, or r < y. The assumption of :mod:`paramcount.analyze.prove` (each count a polynomial
of bounded degree in the sub-case's own parameters: B's variables, the quotient, the
remainder) carries the identity to the whole sub-case, as it already does to ``q = 0``: a
polynomial vanishing on a product of infinite sets vanishes. The Schwartz–Zippel bound is over
the points drawn; each such substitution is written in the case's notes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import sympy

from paramcount.analyze.prove.case import UnsupportedError, integer_poly
from paramcount.core.formula import pretty

if TYPE_CHECKING:
    from paramcount.analyze.prove.parametrize import Space

__all__ = ["PIECEWISE", "innermost", "resolve_floors", "split_floor", "split_of", "split_root"]

PIECEWISE = (sympy.KroneckerDelta, sympy.floor, sympy.ceiling)


def innermost(atoms: Sequence[sympy.Expr]) -> list[sympy.Expr]:
    """The atoms to split first: indicators, then floors with no piecewise term inside, by a
    constant before by a polynomial (a layer pattern's ``L // 4`` before ``L // step``: the
    other order multiplies the residues of every parameter of ``step·q``)."""
    def inner(t) -> bool:
        return not any(isinstance(s, PIECEWISE) for s in sympy.preorder_traversal(t.args[0])
                       if s is not t.args[0]) and not isinstance(t.args[0], PIECEWISE)

    def key(t) -> tuple[int, int]:
        if isinstance(t, sympy.KroneckerDelta):
            return (0, 0)
        return (1 if inner(t) else 2, 0 if sympy.fraction(sympy.together(t.args[0]))[1]
                .is_Integer else 1)
    return sorted(atoms, key=key)


def split_of(atom: sympy.Expr, free: Sequence[sympy.Symbol]):
    """Sub-cases on which ``atom`` (KroneckerDelta, floor, ceiling) is a polynomial."""
    if isinstance(atom, sympy.KroneckerDelta):
        a, b = atom.args
        return [(("eq", a, b),), (("neq", a, b),)]
    if _root(atom) is not None:  # floor(√X): X a square, or not
        return [(("square", _root(atom)),), (("nonsquare", _root(atom)),)]
    if isinstance(atom, (sympy.floor, sympy.ceiling)):
        num, den = sympy.fraction(sympy.together(atom.args[0]))
        if den.is_Integer and den > 1:
            for x in sorted(num.free_symbols & set(free), key=lambda s: s.name):
                if sympy.degree(num, x) == 1:
                    return [(("mod", x, int(den), r),) for r in range(int(den))]
        elif den.free_symbols \
                and (num.free_symbols | den.free_symbols) <= set(free) \
                and integer_poly(num, list(free)) and integer_poly(den, list(free)) \
                and _unit(num, den, free) is not None:
            # floor(A/B): B divides A, or A = B·q + r with 0 < r < B (a ceiling: the same)
            return [(("divides", num, den),), (("remainder", num, den),)]
    raise UnsupportedError(f"{pretty(atom)} is not a polynomial and the prover cannot split it")


def _unit(a: sympy.Expr, b: sympy.Expr, free) -> tuple[sympy.Symbol, int] | None:
    """(x, k): a parameter of A of degree one, absent from B, whose coefficient is a positive
    constant k: the smallest k, then the first by name."""
    best = None
    for x in sorted(a.free_symbols & set(free) - b.free_symbols, key=lambda s: s.name):
        if sympy.degree(a, x) != 1:
            continue
        k = sympy.expand(a).coeff(x, 1)
        if k.is_Integer and k > 0 and (best is None or k < best[1]):
            best = (x, int(k))
    return best


def split_floor(space: Space, kind: str, a: sympy.Expr, b: sympy.Expr, fractions: list,
                conditions: list, checks: list) -> None:
    """Impose B | A (``divides``) or B ∤ A (``remainder``) on the space; append to
    ``fractions`` the parts in [0, 1) by which A/B (and the reduced A'/B') exceed floor(A/B)."""
    a, b = sympy.expand(space.cur(a)), sympy.expand(space.cur(b))
    oa, ob = space.orig(a), space.orig(b)
    found = _unit(a, b, space.free())
    if found is None:
        raise UnsupportedError(f"cannot split floor({pretty(oa)}/{pretty(ob)})")
    x, k = found
    shift = 0
    if k > 1:  # floor((k·A' + ρ)/(k·B')) = floor(A'/B') for 0 ≤ ρ < k, on multiples of k
        rest = sympy.expand(a - k * x)
        const = rest.as_coeff_Add()[0]
        shift = int(const) % k
        need = set() if integer_poly(b / k, space.free()) else set(b.free_symbols)
        if not integer_poly((rest - const) / k, space.free()):
            need |= (rest - const).free_symbols
        for v in sorted(need & set(space.free()), key=lambda s: s.name):
            w = space.fresh(v.name, space.orig(v) / k)
            space.assign(v, k * w)
            space.notes.append(f"{v.name} = {k}·{w.name} (a sub-lattice of the valid values)")
        a, b = sympy.expand(space.cur(a)), sympy.expand(space.cur(b))
        if not (integer_poly(b / k, space.free()) and integer_poly((a - shift) / k, space.free())):
            raise UnsupportedError(f"cannot split floor({pretty(oa)}/{pretty(ob)})")
        a, b = sympy.expand((a - shift) / k), sympy.expand(b / k)
    label = sympy.expand(oa - shift)
    checks.append((kind, label, ob))
    shown = sympy.Add(*[t for t in sympy.Add.make_args(label)
                        if not integer_poly(t / ob, sorted(ob.free_symbols | t.free_symbols,
                                                           key=lambda s: s.name))])
    conditions.append(f"{pretty(ob)} {'divides' if kind == 'divides' else 'does not divide'} "
                      f"{pretty(shown)}")
    ra, rb = space.orig(a), space.orig(b)  # the reduced floor's, in the original symbols
    r: sympy.Expr = sympy.Integer(0)
    said, shown_b, shown_rest = "", b, sympy.expand(a - x)
    if kind == "remainder":  # 0 < r < B: B = r + t where B is one parameter, else r < y ≤ B
        r = space.fresh("r", sympy.Mod(ra, rb))
        y = _bounding(space, b, a)
        t = space.fresh(y.name, space.orig(y) - sympy.Mod(ra, rb))
        said = f", {y.name} = {r.name} + {t.name}" + (
            "" if b == y else f" ({r.name} < {y.name}: a sub-region of {r.name} < {pretty(b)})")
        space.assign(y, r + t)
        b = sympy.expand(space.cur(b))
    rest = sympy.expand(space.cur(a) - x)  # A − x, read through the new substitutions
    probe = sympy.Dummy("q", integer=True, positive=True)
    # q ≥ 1 + s, where x = B·q + r − (A − x) is not positive at every q ≥ 1: s a constant, or
    # A − x itself where its coefficients are nonnegative (Qwen3-Next's floor((n' + L')/step):
    # L' = step·(q + n') + r − n', a sub-region q > n' of the quotients, as r < y is of the
    # remainders)
    grows = [rest] if not rest.is_Number and integer_poly(rest, space.free()) and all(
        c >= 0 for c in sympy.Poly(rest, *space.free()).coeffs()) else []
    for s in [*range(4), *grows]:
        value = sympy.expand(b * (probe + s) + r - rest)
        if _positive(space, value, probe):
            break
    else:
        raise UnsupportedError(f"cannot split floor({pretty(oa)}/{pretty(ob)}) over positive "
                               "parameters")
    q = space.fresh(x.name, (ra / rb if kind == "divides" else sympy.floor(ra / rb))
                    - space.orig(s))
    space.assign(x, sympy.expand(value.xreplace({probe: q})))
    space.notes.append(f"{x.name} = {pretty(shown_b * (q + s) + r - shown_rest)}{said}" + (
        "" if isinstance(s, int) else f" ({q.name} > {pretty(s)}: a sub-region of the quotients)"))
    fractions.append(r / b)
    if k > 1:
        fractions.append((k * r + shift) / (k * b))


def _positive(space: Space, value: sympy.Expr, probe: sympy.Symbol) -> bool:
    free = [*space.free(), probe]
    diff = sympy.expand((value - 1).xreplace({v: v + 1 for v in free}))
    if diff.is_Number:
        return bool(diff >= 0)
    return integer_poly(diff, free) and all(c >= 0 for c in sympy.Poly(diff, *free).coeffs())


def _bounding(space: Space, b: sympy.Expr, a: sympy.Expr) -> sympy.Symbol:
    """A parameter y of B, of degree one with a positive constant coefficient, the rest of B
    nonnegative: r < y then implies r < B. Those absent from A first, then fresh ones."""
    options = []
    for y in b.free_symbols & set(space.free()):
        c = sympy.expand(b).coeff(y, 1)
        if sympy.degree(b, y) == 1 and c.is_Integer and c > 0 \
                and _positive(space, sympy.expand(b - c * y) + 1, sympy.Dummy()):
            options.append(y)
    if not options:
        raise UnsupportedError(f"cannot bound a remainder by {pretty(space.orig(b))}")
    return min(options, key=lambda y: (y in a.free_symbols, y not in space.inverse, y.name))


def resolve_floors(e: sympy.Expr, fractions: Sequence[sympy.Expr],
                   free: Sequence[sympy.Symbol],
                   roots: Sequence[tuple[sympy.Expr, sympy.Expr]] = ()) -> sympy.Expr:
    """Replace each floor(X) whose X is an integer polynomial k in the free parameters, or k plus
    one of ``fractions`` (each 0 or in (0, 1): r/B of a remainder case, r ≥ 1), by k: its exact
    value; each ceiling(X) likewise by k, or k + 1 where the fraction is not 0; each floor(√X)
    of a ``roots`` pair (X, s), X = s² + r with 0 ≤ r ≤ 2s, by s."""
    def value(atom):
        root = _root(atom)
        if root is not None:
            return next((s for x, s in roots if sympy.expand(x - root) == 0), atom)
        x = sympy.cancel(atom.args[0])
        for frac in (0, *fractions):
            k = sympy.cancel(x - frac)
            if integer_poly(k, free):
                up = isinstance(atom, sympy.ceiling) and sympy.cancel(frac) != 0
                return k + 1 if up else k
        return atom

    return e.replace(lambda t: isinstance(t, (sympy.floor, sympy.ceiling)), value)


def _root(atom: sympy.Expr) -> sympy.Expr | None:
    """X of floor(√X), else None."""
    if isinstance(atom, sympy.floor) and isinstance(atom.args[0], sympy.Pow) \
            and atom.args[0].exp == sympy.Rational(1, 2):
        return atom.args[0].base
    return None


def split_root(space: Space, kind: str, x: sympy.Expr, roots: list, conditions: list,
               checks: list) -> None:
    """Impose X = s² (``square``) or X = s² + r, 1 ≤ r ≤ 2s (``nonsquare``), s = floor(√X) a
    new parameter, by eliminating a parameter v of X of degree one and coefficient one; the
    remainder is drawn below s (s = r + t: a sub-region of r ≤ 2s). Appends (X, s) to
    ``roots``."""
    x = sympy.expand(space.cur(x))
    ox = space.orig(x)
    v = next((v for v in sorted(x.free_symbols & set(space.free()), key=lambda s: s.name)
              if sympy.degree(x, v) == 1 and x.coeff(v, 1) == 1), None)
    if v is None:
        raise UnsupportedError(f"cannot split floor(√{pretty(ox)})")
    rest = sympy.expand(x - v)
    root = sympy.floor(sympy.sqrt(ox))
    checks.append((kind, ox))
    conditions.append(f"{pretty(ox)} is {'' if kind == 'square' else 'not '}a square")
    if kind == "square":
        s = space.fresh("s", root)
        r: sympy.Expr = sympy.Integer(0)
        said = f"{v.name} = {s.name}²" + (f" − ({pretty(rest)})" if rest != 0 else "")
        value = s**2 - rest
    else:
        r = space.fresh("r", ox - root**2)
        t = space.fresh("s", root - (ox - root**2))
        s = r + t
        said = (f"{v.name} = s² + {r.name}" + (f" − ({pretty(rest)})" if rest != 0 else "")
                + f", s = floor(√{pretty(ox)}) = {r.name} + {t.name} ({r.name} < s: a "
                f"sub-region of 1 ≤ {r.name} ≤ 2s)")
        value = sympy.expand(s**2 + r - rest)
    if not _positive(space, value, sympy.Dummy()):
        raise UnsupportedError(f"cannot split floor(√{pretty(ox)}) over positive parameters")
    space.assign(v, value)
    space.notes.append(said)
    roots.append((sympy.expand(s**2 + r), s))  # X, read through the substitution
