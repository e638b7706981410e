"""The integer solution of a fit's linear system, solved modulo a prime and checked exactly.

Split from :mod:`paramcount.analyze.derive.fit` (its size cap). No float, no SymPy.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["solve"]

_P = (1 << 61) - 1  # a prime: the coefficients are solved modulo it, then checked exactly


def solve(rows: list[list[int]], ys: list[int], head: int = 8) -> list[int] | None:
    """The integer solution of rows·x = ys (free columns at zero, pivots in column order), or
    None where there is none. Solved modulo _P from the first m + 8 rows (exact rational
    elimination took a second a system on Jamba's 42 monomials), each value lifted to the
    integer nearest zero, and checked exactly on every row: a rational or inconsistent system
    gives None, as does one whose coefficients reach 2⁶⁰ (no weight's size has such). Where
    those rows leave a column free and the solution fails a later row, from every row: a flag
    zero in half the builds (Jamba's mamba_conv_bias) leaves the first rows short of rank.

    Where every row leaves a column free and the solution with the last free columns at zero
    is not whole, once more with the pivots in reverse column order (the first free columns at
    zero): the samples may not tell two monomials apart (t·M·q² from others where the flag t
    is 0 or 1 and q = H // M) with the whole solution at the other end of the line of
    solutions (Zamba 2's untied attention adapters, Σ_b ⌈(H − b)/M⌉²)."""
    m = len(rows[0]) if rows else 0
    order = list(range(m))
    x, short = _solve(rows, ys, order, head)
    if x is None and short and m + head < len(rows):
        x, short = _solve(rows, ys, order, len(rows))
    if x is None and short:
        x, _ = _solve(rows, ys, order[::-1], len(rows))
    return x


def _solve(rows: Sequence[list[int]], ys: Sequence[int], order: list[int],
           head: int) -> tuple[list[int] | None, bool]:
    """rows·x = ys with pivots taken in the columns' ``order``, free columns at zero, from the
    first m + head rows, checked on every row; and whether the system was consistent but short
    of rank (the one case another choice of rows or of free columns may change)."""
    m = len(order)
    # from a few more rows than unknowns; the rest are checked below
    mat = [[r[c] % _P for c in order] + [y % _P]
           for r, y in zip(rows[:m + head], ys, strict=False)]
    pivots: list[int] = []
    r = 0
    for c in range(m):
        p = next((i for i in range(r, len(mat)) if mat[i][c]), None)
        if p is None:
            continue
        mat[r], mat[p] = mat[p], mat[r]
        inv = pow(mat[r][c], _P - 2, _P)
        pivot = mat[r]
        pivot[c:] = [v * inv % _P for v in pivot[c:]]  # (left of c: zeros already)
        tail = pivot[c:]
        for i in range(r + 1, len(mat)):
            f = mat[i][c]
            if f:
                row = mat[i]
                row[c:] = [(a - f * b) % _P for a, b in zip(row[c:], tail, strict=True)]
        pivots.append(c)
        r += 1
    if any(row[m] for row in mat[r:]):
        return None, False
    z = [0] * m
    for i in range(r - 1, -1, -1):  # back substitution, free columns at zero
        c = pivots[i]
        row = mat[i]
        z[c] = (row[m] - sum(row[j] * z[j] for j in pivots[i + 1:])) % _P
    x = [0] * m
    for k, c in enumerate(order):
        x[c] = z[k] - _P if z[k] > _P // 2 else z[k]
    if any(sum(a * b for a, b in zip(row, x, strict=True)) != y
           for row, y in zip(rows, ys, strict=True)):
        return None, r < m
    return x, False
