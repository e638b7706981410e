"""The fit's linear solve (issue 32): a system short of rank whose whole solution has the *first*
free columns at zero, not the last; solved once more in reverse column order, only where the
first solve is consistent but not whole. Fast, no torch."""

from __future__ import annotations

from paramcount.analyze.derive import fit
from paramcount.analyze.derive.linsolve import solve


def test_solve_finds_the_whole_solution_at_the_other_end_of_the_line():
    # column 0 is twice column 1: the last free gives x = (1/2, 0), not whole; the first free
    # gives (0, 1), which reproduces every row
    assert solve([[2, 1], [4, 2], [6, 3]], [1, 2, 3]) == [0, 1]


def test_solve_still_none_where_no_whole_solution_exists():
    assert solve([[2, 2], [4, 4]], [1, 2]) is None  # 2(x0 + x1) = 1: no integers
    assert solve([[1, 0], [1, 0]], [1, 2]) is None  # inconsistent
    assert solve([[1, 2], [3, 4], [5, 6]], [5, 11, 17]) == [1, 2]  # full rank: unchanged


def _blocks(layers: int, blocks: int, tied: int) -> int:
    # adapters on H = layers hybrid layers shared round-robin by M = blocks blocks: tied, one
    # per layer; untied, block b's adapter list is as long as its layer count ⌈(H − b)/M⌉ and
    # every block builds one per layer it serves, Σ_b ⌈(H − b)/M⌉²
    return layers if tied else sum(-(-(layers - b) // blocks) ** 2 for b in range(blocks))


# the (H, M, tied) points Zamba 2's builds with the attention adapter gave: few enough that the
# samples cannot tell blocks·tied·q² from the other monomials (q = H // M), and the whole
# solution sets another free column to zero; the old solve gave None there and a chance fit
# with ⌈q / 2⌉ won (H = 5, M = 1, untied: 33, not 25)
_POINTS = [(1, 1, 0), (1, 1, 1), (2, 1, 0), (2, 1, 1), (2, 2, 0), (3, 1, 0), (3, 1, 1), (3, 3, 0),
           (4, 1, 0), (4, 1, 1), (4, 2, 0), (4, 3, 0), (5, 1, 1), (5, 4, 0), (5, 4, 1), (6, 2, 1),
           (6, 4, 0), (6, 4, 1), (6, 5, 1), (6, 6, 0), (6, 6, 1), (7, 1, 1), (7, 2, 0), (7, 3, 1),
           (7, 7, 0), (8, 7, 0), (8, 7, 1), (8, 8, 0), (9, 3, 0), (9, 4, 1), (9, 5, 1), (9, 9, 0),
           (10, 3, 1), (10, 9, 0)]


def test_fit_counts_untied_round_robin_adapters_from_few_points():
    samples = [({"layers": h, "blocks": m, "tied": t}, _blocks(h, m, t)) for h, m, t in _POINTS]
    found = fit.fit(["layers", "blocks", "tied"], ["layers", "blocks"], samples)
    assert found is not None
    assert "ceil" not in fit.poly_text(found)
    for h in range(1, 30):
        for m in range(1, 9):
            for t in (0, 1):
                point = {"layers": h, "blocks": m, "tied": t}
                assert fit.evaluate(found, point) == _blocks(h, m, t), (h, m, t)
