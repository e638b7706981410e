"""Layer counts of a kind that recurs with a period (issue 32): exact floor and ceiling
expressions of the layer count, the period and the start or offset, fitted from counts."""

import random

import pytest

from paramcount.analyze.derive import fit as fitting


def _every(layers, period, start=0, offset=None):
    """How many i < layers, i ≥ start, have i + 1 ≡ 0 (mod period), or i ≡ offset."""
    want = period - 1 if offset is None else offset
    return sum(1 for i in range(start, layers) if i % period == want)


def test_from_a_start_is_two_floors():
    rng = random.Random(3)
    samples = []
    for _ in range(60):
        s = rng.randint(0, 8)
        L = rng.randint(s, 24)
        p, h = rng.randint(1, 6), rng.randint(1, 9)
        samples.append(({"L": L, "p": p, "s": s, "h": h}, _every(L, p, s)))
    poly = fitting.fit(["L", "p", "s"], ["L", "p", "s", "h"], samples)
    assert poly is not None
    assert {a for _, atoms in poly for a in atoms} == {("floor", "L", "p"), ("floor", "s", "p")}
    assert all(fitting.evaluate(poly, p) == y for p, y in samples)


@pytest.mark.parametrize("offset", [1, 2])
def test_an_offset_is_a_shifted_ceiling(offset):
    rng = random.Random(offset)
    samples = []
    for _ in range(60):
        p = rng.randint(offset + 1, 7)
        L = rng.randint(0, 30)
        samples.append(({"L": L, "p": p, "h": rng.randint(1, 9)}, _every(L, p, offset=offset)))
    poly = fitting.fit(["L", "p"], ["L", "p", "h"], samples)
    assert poly == ((1, (("ceil", ("minus", "L", str(offset)), "p"),)),)
    assert fitting.poly_text(poly) == f"ceil((L - {offset}) / p)"
