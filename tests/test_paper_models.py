"""The paper's other models (FFNN, RNN, seq2seq, the original Transformer, ViT, TST): what the
generic conformance test does not check — the gate-slice attribution, closed forms from the papers,
and what each option changes."""

from __future__ import annotations

import dataclasses

import pytest
import sympy

from paramcount.analyze.verify import Weight, compare
from paramcount.core.errors import ConstraintError
from paramcount.core.formula import Term, group, leaf
from paramcount.core.symbols import d_e, d_h
from paramcount.model import registry
from paramcount.model.components.recurrent import recurrent_cell
from paramcount.model.registry import Architecture


def count(arch_id: str, **hp) -> int:
    arch = registry.get(arch_id)
    return arch.count(arch.resolve(hp))


def breakdown(arch_id: str, **hp) -> dict:
    arch = registry.get(arch_id)
    return arch.formula.breakdown(arch.values(arch.resolve(hp)))


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


# --- recurrent layers ----------------------------------------------------------------------------
def _layer(arch_id: str, layer: str = "layer_1") -> Term:
    return registry.get(arch_id).formula.find(f"rnn.{layer}")


@pytest.mark.parametrize(("arch_id", "gates"), [
    ("lstm_lm", ["input", "forget", "cell", "output"]),
    ("gru_lm", ["update", "reset", "candidate"]),
    ("simple_rnn_lm", ["cell"]),
])
def test_gate_structure_is_in_the_breakdown(arch_id, gates):
    assert [c.name for c in _layer(arch_id).children] == gates
    hp = dict(v=50, d_e=8, d_h=6, L=2)
    assert list(breakdown(arch_id, **hp)["rnn"]["layer_1"]) == gates


def test_recurrent_layer_closed_forms():
    bi, ra = sympy.Symbol("bi", integer=True, nonnegative=True), sympy.Symbol(
        "reset_after", integer=True, nonnegative=True)
    one = {bi: 0}
    lstm = _layer("lstm_lm").per_instance()
    assert sympy.expand(lstm - 4 * (d_e * d_h + d_h**2 + d_h)) == 0
    gru = _layer("gru_lm").per_instance()
    assert sympy.expand(gru - 3 * (d_e * d_h + d_h**2 + (1 + ra) * d_h)) == 0
    rnn = _layer("simple_rnn_lm").per_instance()
    assert sympy.expand(rnn - (d_e * d_h + d_h**2 + d_h)) == 0
    # later layers read the previous layer's output: d_h, or 2·d_h when bidirectional
    later = _layer("lstm_lm", "layers_2_to_L")
    assert sympy.expand(later.per_instance().subs(one) - 4 * (2 * d_h**2 + d_h)) == 0
    assert sympy.expand(later.per_instance().subs(bi, 1) - 4 * (3 * d_h**2 + d_h)) == 0


def test_bidirectional_and_reset_after_change_the_count_by_their_terms():
    hp = dict(v=100, d_e=10, d_h=7, L=3)
    h, e, v = 7, 10, 100
    uni, bid = count("lstm_lm", **hp), count("lstm_lm", **hp, bi=1)
    layer_1 = 4 * (e * h + h * h + h)
    later_uni, later_bi = 4 * (h * h + h * h + h), 4 * (2 * h * h + h * h + h)
    assert bid - uni == layer_1 + 2 * (2 * later_bi - later_uni) + h * v  # head reads 2·d_h
    assert count("gru_lm", **hp) - count("gru_lm", **hp, reset_after=0) == 3 * h * 3


def test_tied_head_needs_matching_widths():
    assert count("lstm_lm", v=100, d_e=8, d_h=8, L=2) - count(
        "lstm_lm", v=100, d_e=8, d_h=8, L=2, tied=1) == 8 * 100 + 100
    with pytest.raises(ConstraintError, match="d_e"):
        count("lstm_lm", v=100, d_e=8, d_h=6, L=2, tied=1)
    with pytest.raises(ConstraintError):  # bidirectional: the last output is 2·d_h wide
        count("gru_lm", v=100, d_e=8, d_h=8, L=2, tied=1, bi=1)
    assert count("gru_lm", v=100, d_e=8, d_h=4, L=2, tied=1, bi=1) > 0


def test_output_width_other_than_v():
    hp = dict(v=100, d_e=8, d_h=6, L=2)
    assert count("lstm_lm", **hp) - count("lstm_lm", **hp, v_out=3) == (6 + 1) * (100 - 3)
    with pytest.raises(ConstraintError, match="v_out"):  # a tied head predicts the vocabulary
        count("lstm_lm", v=100, d_e=8, d_h=8, L=2, tied=1, v_out=3)


def test_layers_of_different_widths_and_cell_types_are_data():
    from paramcount.families.rnn_lm import stacked_rnn_lm

    # mixed_rnn_lm: LSTM (d_h1) → GRU (d_h2, reset_after: two biases) → SimpleRNN (d_h3)
    v, e, h1, h2, h3 = 101, 16, 24, 12, 20
    n = count("mixed_rnn_lm", v=v, d_e=e, d_h1=h1, d_h2=h2, d_h3=h3)
    lstm, gru, rnn = 4 * (e * h1 + h1 * h1 + h1), 3 * (h1 * h2 + h2 * h2 + 2 * h2), \
        h2 * h3 + h3 * h3 + h3
    assert n == v * e + lstm + gru + rnn + h3 * v + v
    # the same kinds as a uniform stack: equal widths give lstm_lm's count
    same = stacked_rnn_lm(("lstm", "lstm"), id="two_lstm_test")
    hp = dict(v=50, d_e=7, d_h1=5, d_h2=5, bi=1)
    assert same.count(same.resolve(hp)) == count("lstm_lm", v=50, d_e=7, d_h=5, L=2, bi=1)
    with pytest.raises(ValueError, match="cell types"):
        stacked_rnn_lm(("lstm", "transformer"), id="bad_test")


def test_zaremba_lstm_lms_match_their_published_sizes():
    # ~20M (medium) and ~66M (large), as cited for Zaremba et al. 2014 (Press & Wolf 2017)
    medium = count("lstm_lm", v=10000, d_e=650, d_h=650, L=2)
    large = count("lstm_lm", v=10000, d_e=1500, d_h=1500, L=2)
    assert medium == 10000 * 650 + 2 * 4 * (2 * 650**2 + 650) + 650 * 10000 + 10000
    assert round(medium / 1e6) == 20 and round(large / 1e6) == 66


def test_ffnn_lm_is_bengios_closed_form():
    v, n, e, h = 97, 4, 6, 11
    assert count("ffnn_lm", v=v, n=n, d_e=e, d_h=h) == v * e + n * e * h + h + h * v + v
    assert count("ffnn_lm", v=v, n=n, d_e=e, d_h=h, direct=1) - count(
        "ffnn_lm", v=v, n=n, d_e=e, d_h=h) == n * e * v
    assert count("ffnn_lm", v=v, n=n, d_e=e, d_h=h, L=3) - count(
        "ffnn_lm", v=v, n=n, d_e=e, d_h=h) == 2 * (h * h + h)


# --- sequence to sequence ----------------------------------------------------------------------
def test_sutskever_seq2seq_is_384m_with_64m_recurrent():
    hp = dict(v_src=160000, v_tgt=80000, d_e=1000, d_h=1000, L_enc=4, L_dec=4)
    total = count("seq2seq_lstm", **hp)
    parts = breakdown("seq2seq_lstm", **hp)

    def flat(d):
        return sum(flat(x) if isinstance(x, dict) else x for x in d.values())

    lstm = flat(parts["encoder"]) + flat(parts["decoder"])
    assert lstm == 8 * 4 * (1000 * 1000 + 1000 * 1000 + 1000)
    assert round(lstm / 1e6) == 64  # "64M are pure recurrent connections" (section 3.4)
    assert round(total / 1e6) == 384  # "the resulting LSTM has 384M parameters"


def test_seq2seq_output_width_other_than_v_tgt():
    hp = dict(v_src=31, v_tgt=41, d_e=6, d_h=9, L_enc=2, L_dec=2)
    assert count("seq2seq_lstm", **hp) - count("seq2seq_lstm", **hp, v_out=5) == (9 + 1) * 36
    wide = (9 + 9 + 1) * 36  # the attention model's head reads [decoder output; context]
    assert count("seq2seq_attention", **hp, d_a=4) - count(
        "seq2seq_attention", **hp, d_a=4, v_out=5) == wide


def test_seq2seq_layers_of_different_widths_and_cell_types_are_data():
    from paramcount.families.seq2seq import stacked_seq2seq

    # equal LSTM stacks as data give seq2seq_lstm's count
    same = stacked_seq2seq(("lstm", "lstm"), ("lstm", "lstm"), id="s2s_same_test")
    hp = dict(v_src=31, v_tgt=41, d_e=6)
    assert same.count(same.resolve({**hp, "d_enc1": 9, "d_enc2": 9})) == count(
        "seq2seq_lstm", **hp, d_h=9, L_enc=2, L_dec=2)
    # a deeper decoder: its bottom layer starts from nothing and has a width of its own
    deep = stacked_seq2seq(("gru",), ("lstm", "simple_rnn"), id="s2s_deep_test")
    assert {s.name for s in deep.required} == {"v_src", "v_tgt", "d_e", "d_enc1", "d_dec1"}
    e, h, g = 6, 5, 7  # d_e, d_dec1 (LSTM), d_enc1 (GRU; also the SimpleRNN it starts)
    n = deep.count(deep.resolve({**hp, "d_enc1": g, "d_dec1": h}))
    assert n == (31 + 41) * e + 3 * (e * g + g * g + 2 * g) + 4 * (e * h + h * h + h) \
        + (h * g + g * g + g) + g * 41 + 41
    from paramcount.analyze.verify import verify  # and Keras builds the same, bidirectional encoder too

    assert verify(deep, {**hp, "d_enc1": g, "d_dec1": h, "bi": 1}).ok
    with pytest.raises(ValueError, match="state"):  # an LSTM's (h, c) cannot start a GRU
        stacked_seq2seq(("lstm",), ("gru",), id="s2s_bad_test")


def test_attention_adds_bahdanau_weights_and_a_wider_softmax():
    hp = dict(v_src=50, v_tgt=40, d_e=8, d_h=12, L_enc=2, L_dec=2)
    d_a = 10
    extra = count("seq2seq_attention", **hp, d_a=d_a) - count("seq2seq_lstm", **hp)
    assert extra == 12 * d_a + 12 * d_a + d_a + 12 * 40  # W_a, U_a, v_a; context into the head
    extra_bi = count("seq2seq_attention", **hp, d_a=d_a, bi=1) - count(
        "seq2seq_lstm", **hp, bi=1)
    assert extra_bi == 12 * d_a + 24 * d_a + d_a + 24 * 40


# --- the original Transformer ------------------------------------------------------------------
def test_transformer_base_closed_form_and_options():
    base = dict(v_src=37000, v_tgt=37000, d_e=512, M=8, d_f=2048, L_enc=6, L_dec=6)
    attn = 4 * (512 * 512 + 512)
    ffn = 512 * 2048 + 2048 + 2048 * 512 + 512
    enc, dec = attn + ffn + 2 * 1024, 2 * attn + ffn + 3 * 1024
    assert count("transformer", **base, shared=1, tied=1) == 37000 * 512 + 6 * enc + 6 * dec
    assert count("transformer", **base, shared=1, tied=1) == 63_082_496
    assert count("transformer", **base) - count("transformer", **base, shared=1) == 37000 * 512
    assert count("transformer", **base) - count("transformer", **base, tied=1) == 512 * 37000 + 37000
    assert breakdown("transformer", **base)["embeddings"]["positions"] == 0
    with pytest.raises(ConstraintError, match="v_src"):
        count("transformer", **{**base, "v_tgt": 100}, shared=1)


def test_keras_io_text_generation_gpt_floors_its_head_width():
    # keras-io's text_generation_gpt: TokenAndPositionEmbedding, 2 TransformerDecoder blocks,
    # Dense(v) head; d_e = 256 with M = 3 heads, which KerasHub floors to 3 heads of 85.
    hp = dict(v=5000, n=128, d_e=256, M=3, d_f=128, L=2)
    attn = 3 * (256 * 255 + 255) + 255 * 256 + 256
    block = attn + (256 * 128 + 128 + 128 * 256 + 256) + 2 * 2 * 256
    assert count("transformer_decoder", **hp) == 5000 * 256 + 128 * 256 + 2 * block + 256 * 5000 + 5000
    assert count("transformer_decoder", **hp) == 3_255_938
    assert registry.get("transformer_decoder").resolve(hp)["d_k"] == 85


@pytest.mark.parametrize("arch_id", ["transformer_encoder", "transformer_decoder"])
def test_transformer_lm_head_widths_and_bias_are_free_as_in_the_paper(arch_id):
    # the paper's attention: 2·M·d_e·(d_k + d_v) + ζ·(M·(2·d_k + d_v) + d_e)
    hp = dict(v=97, n=9, d_e=20, M=3, d_f=11, L=2)
    def attn(d_k, d_v, z):
        return 2 * 3 * 20 * (d_k + d_v) + z * (3 * (2 * d_k + d_v) + 20)
    base = count(arch_id, **hp)  # KerasHub's: d_k = d_v = 20 // 3 = 6, ζ = 1
    assert count(arch_id, **hp, d_k=7, d_v=5, zeta=0) - base == 2 * (attn(7, 5, 0) - attn(6, 6, 1))
    assert count(arch_id, **hp, d_k=9) - base == 2 * (attn(9, 9, 1) - attn(6, 6, 1))  # d_v = d_k


# --- ViT and TST -------------------------------------------------------------------------------
def test_vit_base_16_at_224():
    n = count("vit", H=224, P=16, d_e=768, M=12, d_f=3072, L=12)
    patches = (224 // 16) ** 2
    block = 4 * (768 * 768 + 768) + 2 * 2 * 768 + 768 * 3072 + 3072 + 3072 * 768 + 768
    assert n == 16 * 16 * 3 * 768 + 768 + 768 + (patches + 1) * 768 + 12 * block + 2 * 768
    assert n == 85_798_656
    assert count("vit", H=224, W=160, P=16, C=1, d_e=64, M=4, d_f=32, L=1) - count(
        "vit", H=224, W=160, P=16, C=1, d_e=64, M=4, d_f=32, L=1, cls=0) == 2 * 64
    with pytest.raises(ConstraintError, match="P"):
        count("vit", H=225, P=16, d_e=768, M=12, d_f=3072, L=12)


def test_vit_mlp_and_patch_biases_switch_apart():
    # KerasHub's use_mlp_bias (b_ffn) and use_patch_bias (b_patch)
    hp = dict(H=224, P=16, d_e=768, M=12, d_f=3072, L=12)
    assert count("vit", **hp) - count("vit", **hp, b_ffn=0) == 12 * (3072 + 768)
    assert count("vit", **hp) - count("vit", **hp, b_patch=0) == 768


def test_tst_batch_norm_adds_only_non_trainable_statistics():
    arch = registry.get("tst")
    hp = dict(d_x=5, n=12, d_e=16, M=4, d_f=32, L=3)
    with_bn, with_ln = arch.resolve(hp), arch.resolve({**hp, "bn": 0})
    trained = arch.formula.trainable_total(True)
    frozen = arch.formula.trainable_total(False)
    assert trained.subs(arch.values(with_bn)) == trained.subs(arch.values(with_ln))
    assert frozen.subs(arch.values(with_bn)) == 3 * 2 * 2 * 16
    assert frozen.subs(arch.values(with_ln)) == 0
    head = count("tst", **hp, d_y=7) - count("tst", **hp, pretrain=1)
    assert head == (12 * 16 * 7 + 7) - (16 * 5 + 5)


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
