"""The paper's other models (FFNN, RNN, seq2seq, the original Transformer, ViT, TST): what the
generic conformance test does not check and no one family owns — the gate-slice attribution (a
leaf claims one of k slices of a weight), and the rendering layer's breakdown table. (Each
family's closed forms from the papers, and what each option changes, are tested beside it:
paramcount/families/<f>/<f>_test.py.)"""

from __future__ import annotations

import dataclasses

import pytest

from paramcount.analyze.verify import Weight, compare
from paramcount.core.formula import Term, group, leaf
from paramcount.core.symbols import d_e, d_h
from paramcount.model.components.recurrent import recurrent_cell
from paramcount.model.registry import Architecture


# --- the core extension: a leaf claims one of k last-axis slices of a weight -------------------
def _arch(*gates: Term) -> Architecture:
    return Architecture(id="gates_test", title="t", source="t", reference="none:none",
                        counting="t", formula=group("m", group("layer", *gates, match="lstm")),
                        required=(d_e, d_h))


def _lstm_weights(d_in: int, units: int) -> list[Weight]:
    return [Weight("lstm/lstm_cell/kernel", d_in * 4 * units, True, (d_in, 4 * units)),
            Weight("lstm/lstm_cell/recurrent_kernel", units * 4 * units, True, (units, 4 * units)),
            Weight("lstm/lstm_cell/bias", 4 * units, True, (4 * units,))]


def test_each_gate_claims_its_slice_of_kernel_recurrent_kernel_and_bias():
    result = compare(_arch(*recurrent_cell("lstm", d_e)), {"d_e": 5, "d_h": 3},
                     _lstm_weights(5, 3))
    assert result.ok, result.mismatches()
    assert [c.actual for c in result.components] == [5 * 3 + 9 + 3] * 4
    assert result.components[1].weights == ("lstm/lstm_cell/kernel[1/4]",
                                            "lstm/lstm_cell/recurrent_kernel[1/4]",
                                            "lstm/lstm_cell/bias[1/4]")


def test_a_missing_gate_leaves_its_slices_unclaimed():
    three = recurrent_cell("lstm", d_e)[:3]
    result = compare(_arch(*three), {"d_e": 5, "d_h": 3}, _lstm_weights(5, 3))
    assert not result.ok
    assert sorted(w.path for w in result.unclaimed) == [
        "lstm/lstm_cell/bias[3/4]", "lstm/lstm_cell/kernel[3/4]",
        "lstm/lstm_cell/recurrent_kernel[3/4]"]


def test_slices_that_do_not_partition_a_weight_are_contested():
    # three slices (a GRU's gates) of an LSTM's 4·d_h = 8 columns: 3 does not divide 8
    result = compare(_arch(*recurrent_cell("gru", d_e, gru_reset_after=0)), {"d_e": 5, "d_h": 2},
                     _lstm_weights(5, 2))
    assert {p for p, _ in result.contested} == {w.path for w in _lstm_weights(5, 2)}
    # a whole-weight claim and a slice claim on the same weight
    mixed = (leaf("all", 4 * d_e * d_h, match="kernel"),
             leaf("gate", d_e * d_h, match="kernel", part=(0, 4)))
    result = compare(_arch(*mixed), {"d_e": 5, "d_h": 3}, _lstm_weights(5, 3)[:1])
    assert [p for p, _ in result.contested] == ["lstm/lstm_cell/kernel"]


def test_part_is_validated():
    with pytest.raises(ValueError, match="part"):
        leaf("g", d_e, match="x", part=(4, 4))
    with pytest.raises(ValueError, match="part"):
        leaf("g", d_e, match="x", part=(0, 2, 1, 0))
    with pytest.raises(ValueError, match="part"):
        Term("g", None, (leaf("a", d_e),), part=(0, 2))


def test_part_may_slice_another_axis():
    # transformers' Mixtral: gate and up stacked along axis 1 of (E, 2·d_f, d_e), d_e odd
    halves = (leaf("gate", d_e * d_h, match="gate_up", part=(0, 2, 1)),
              leaf("up", d_e * d_h, match="gate_up", part=(1, 2, 1)))
    w = [Weight("lstm/gate_up", 2 * 3 * 5, True, (1, 2 * 3, 5))]
    result = compare(_arch(*halves), {"d_e": 5, "d_h": 3}, w)
    assert result.ok, result.mismatches()
    assert [c.weights for c in result.components] == [("lstm/gate_up[0/2]",), ("lstm/gate_up[1/2]",)]
    # the same halves on the last axis do not divide it: contested, never silently halved
    last = tuple(dataclasses.replace(lf, part=lf.part[:2]) for lf in halves)
    assert compare(_arch(*last), {"d_e": 5, "d_h": 3}, w).contested
    # owners that cut different axes do not partition the weight
    mixed = (halves[0], dataclasses.replace(halves[1], part=(1, 2)))
    assert compare(_arch(*mixed), {"d_e": 5, "d_h": 3}, [Weight("lstm/gate_up", 60, True,
                                                                (1, 6, 10))]).contested


def test_fused_leaves_share_a_weight_of_unequal_pieces():
    # transformers' Phi-3: q (M·d_k rows), k and v (M_kv·d_k each) in one qkv_proj
    from paramcount.core.formula import FUSED

    qkv = (leaf("query", 3 * d_e * d_h, match="qkv", part=FUSED),
           leaf("key", d_e * d_h, match="qkv", part=FUSED),
           leaf("value", d_e * d_h, match="qkv", part=FUSED))
    right = compare(_arch(*qkv), {"d_e": 5, "d_h": 2}, [Weight("lstm/qkv", 50, True, (10, 5))])
    assert right.ok, right.mismatches()
    assert [c.actual for c in right.components] == [30, 10, 10]
    # a wrong total is never absorbed: the sum differs, shared out in proportion
    wrong = compare(_arch(*qkv), {"d_e": 5, "d_h": 2}, [Weight("lstm/qkv", 55, True, (11, 5))])
    assert not wrong.ok and wrong.reference - wrong.formula == 5
    assert [c.actual for c in wrong.components] == [33, 11, 11]
    with pytest.raises(ValueError, match="part"):
        Term("g", None, (leaf("a", d_e),), part=FUSED)


# --- the rendering layer's breakdown ----------------------------------------------------------
def test_breakdown_is_the_rendering_layer_s_table_of_an_architecture_s_columns():
    """``paramcount.breakdown`` (render) tabulates ``Architecture.columns`` (model data): a
    preset with overrides is its own column, and the total is the formula's count."""
    import paramcount
    from paramcount.model import registry

    arch = registry.get("gpt2")
    table = paramcount.breakdown("gpt2", "gpt2_base_en", L=2)
    assert [name for name, _ in arch.columns("gpt2_base_en", L=2)] == ["gpt2_base_en+custom"]
    assert table.total == arch.count(arch.resolve(arch.given("gpt2_base_en", {"L": 2})))
    assert paramcount.breakdown(arch, "gpt2_base_en").total == 124_439_808
