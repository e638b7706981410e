"""Exact residuals: when Keras and the formula differ, Keras − formula as a polynomial.

The degree of the residual in each parameter is found along a line through a random point; the
residual is then interpolated (SymPy's ``interpolate``, exact over the rationals) on the tensor
grid of its support, one axis at a time, checked at fresh random points, and written back in the
original symbols (``+2·L·d_e``).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import sympy
from sympy.polys.polyfuncs import interpolate

from paramcount.analyze.prove.case import UNCLAIMED, Case
from paramcount.analyze.prove.oracle import Oracle
from paramcount.analyze.prove.results import Residual

_X = sympy.Symbol("x")


def interpolate_coefficients(xs: Sequence[int], ys: Sequence) -> list[sympy.Rational]:
    """Monomial coefficients (constant first) of the polynomial of degree < len(xs) through
    (xs, ys), exactly."""
    poly = sympy.Poly(interpolate(list(zip(xs, ys, strict=True)), _X), _X)
    coeffs = list(reversed(poly.all_coeffs()))
    return coeffs + [sympy.Integer(0)] * (len(xs) - len(coeffs))


def _grid_poly(support: Sequence[sympy.Symbol], grids: Sequence[Sequence[int]],
               table: Mapping[tuple[int, ...], int]) -> sympy.Expr:
    """The polynomial through values on a tensor grid: interpolate along the first axis the
    polynomials (in the other axes) through each of its slices."""
    if not support:
        return sympy.Integer(table[()])
    x, rest = support[0], support[1:]
    slices = [(xv, _grid_poly(rest, grids[1:], {k[1:]: v for k, v in table.items() if k[0] == j}))
              for j, xv in enumerate(grids[0])]
    return sympy.expand(interpolate(slices, x)) if len(slices) > 1 else slices[0][1]


def _short(path: str) -> str:
    """A component path without the root's name (``blocks.norm_2``)."""
    return path if path == UNCLAIMED else (path.partition(".")[2] or path)


def explain_case(case: Case, oracle: Oracle, rngs, *, max_degree: int = 8) -> tuple[Residual, ...]:
    """Keras − formula per component for one (classified) case, exactly."""
    r = case.rng("explain")

    def start_of(x):
        if x in case.structural:
            return 1
        lo, hi = rngs[x]
        return r.randrange(lo, max(lo + 1, hi - 64))

    base = {x: start_of(x) for x in case.free}
    base.update({x: 2 for x in case.structural})
    comps = list(oracle(base))
    # 1. degree of the residual in each parameter, along a line through the base point
    seq: dict[sympy.Symbol, list[int]] = {}
    deg: dict[sympy.Symbol, int] = {}
    for x in case.free:
        first = 1 if x in case.structural else base[x]
        bound = case.bound(x)
        while True:
            xs = [first + i for i in range(bound + 2)]
            vals = {c: [oracle({**base, x: xv}).get(c, 0) for xv in xs] for c in comps}
            fits = [sympy.expand(interpolate(list(zip(xs[:-1], vals[c][:-1], strict=True)), _X)) for c in comps]
            ok = all(f.subs(_X, xs[-1]) == vals[c][-1] for f, c in zip(fits, comps, strict=True))
            dx = max([int(sympy.degree(f, _X)) if f != 0 else 0 for f in fits] or [0])
            if ok or bound >= max_degree:
                break
            bound = min(max_degree, 2 * bound)
        if not ok:
            return (Residual(f"(all components, in {x.name})", None,
                             note=f"degree in {x.name} above {max_degree}"),)
        seq[x], deg[x] = xs, dx
    support = [x for x in case.free if deg[x] >= 1]
    # 2. interpolation on the support's grid
    grids = [seq[x][: deg[x] + 1] for x in support]
    table: dict[str, dict[tuple[int, ...], int]] = {c: {} for c in comps}
    for idx in itertools.product(*(range(len(g)) for g in grids)):
        d = oracle({**base, **{x: grids[i][j] for i, (x, j) in enumerate(zip(support, idx, strict=True))}})
        for c in comps:
            table[c][idx] = d.get(c, 0)
    polys: dict[str, sympy.Expr | None] = {c: _grid_poly(support, grids, table[c]) for c in comps}
    # 3. check at fresh random points
    for _ in range(2):
        point = {x: (r.randrange(1, case.bound(x) + 3) if x in case.structural
                     else r.randrange(*rngs[x])) for x in case.free}
        d = oracle(point)
        vals = {k: sympy.Integer(v) for k, v in point.items()}
        for c in comps:
            p = polys[c]
            if p is not None and p.xreplace(vals) != d.get(c, 0):
                polys[c] = None
    out = []
    for c in comps:
        p = polys[c]
        if p is None:
            out.append(Residual(_short(c), None, note="the interpolated residual failed the "
                                                      "check at a random point"))
        elif p != 0:
            weights = tuple(sorted(oracle.unclaimed_paths)) if c == UNCLAIMED else ()
            out.append(Residual(_short(c), case.to_original(p), weights))
    return tuple(out)
