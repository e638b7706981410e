"""Roundings the prover splits beside floors (paramcount.analyze.prove.floors), on derived formulas whose
references are written by hand here (no torch): a ceiling by a field of a floor (LFM2's
feed-forward width, int(2·I/3) rounded up to a multiple of block_multiple_of) and ⌊√x⌋ (Doge's
router, 2·⌊√num_experts⌋ wide)."""

from __future__ import annotations

import math

import pytest

from paramcount.model.weights import Weight
from tests.test_prove_floors import ONE, _arch, _field, _prove_all

_LFM2_FIELDS = {"intermediate_size": 12288, "block_multiple_of": 256, "hidden_size": 64}


def _lfm2(wrong: bool):
    def reference(hp):
        h, i, m = hp["hidden_size"], hp["intermediate_size"], hp["block_multiple_of"]
        f = int(2 * i / 3)
        w = m * (f // m if wrong else -(-f // m))  # the wrong one rounds down
        return [Weight("w1/weight", w * h, True, (w, h)), Weight("norm/weight", h, True, (h,))]
    width = ((1, ("block_multiple_of", ("ceil", ("floor", "intermediate_size", "3/2"),
                                         "block_multiple_of"))),)
    return _arch(_LFM2_FIELDS, {"w1.weight": (ONE, (width, _field("hidden_size"))),
                                "norm.weight": (ONE, (_field("hidden_size"),))}, reference)


@pytest.mark.parametrize("wrong", [False, True])
def test_a_ceiling_by_a_field_of_a_floor_is_decided(wrong):
    from paramcount.analyze.prove import cases

    arch = _lfm2(wrong)
    got = cases(arch)
    assert len(got) == 6  # intermediate_size by residue mod 3, each: m divides or not
    for c in got:  # every point is valid and in its sub-case
        for i in range(3):
            hp = c.hparams({x: 2 + i + j for j, x in enumerate(c.free)})
            assert c.meets(hp), (c.label, hp)
    statuses = {p.status for p in _prove_all(arch)}
    assert statuses == ({"proven", "refuted"} if wrong else {"proven"})


def _doge(wrong: bool):
    def reference(hp):
        h, e = hp["hidden_size"], hp["num_experts"]
        k = math.isqrt(e) + (1 if wrong and math.isqrt(e) ** 2 != e else 0)
        return [Weight("router/weight", 2 * k * h, True, (2 * k, h)),
                Weight("experts/weight", e * h, True, (e, h))]
    width = ((2, (("isqrt", "num_experts", "2"),)),)
    return _arch({"num_experts": 16384, "hidden_size": 64},
                 {"router.weight": (ONE, (width, _field("hidden_size"))),
                  "experts.weight": (ONE, (_field("num_experts"), _field("hidden_size")))},
                 reference)


@pytest.mark.parametrize("wrong", [False, True])
def test_a_square_root_is_decided(wrong):
    """⌊√E⌋ = s: E = s² (a square) or E = s² + r, 1 ≤ r ≤ 2s (drawn with r < s)."""
    from paramcount.analyze.prove import cases

    arch = _doge(wrong)
    got = cases(arch)
    assert [c.label for c in got] == ["num_experts is a square", "num_experts is not a square"]
    for c in got:
        for i in range(3):
            hp = c.hparams({x: 2 + i + j for j, x in enumerate(c.free)})
            assert c.meets(hp), (c.label, hp)
    by_case = {p.case: p.status for p in _prove_all(arch)}
    assert by_case == {"num_experts is a square": "proven",
                       "num_experts is not a square": "refuted" if wrong else "proven"}
