"""Sequence to sequence (LSTM, with attention, stacks as data): Sutskever et al.'s figures, the
output width, and Bahdanau attention's weights."""

from __future__ import annotations

import pytest
from tests._shared import breakdown
from tests._shared import count


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
