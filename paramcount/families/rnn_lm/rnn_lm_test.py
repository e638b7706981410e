"""The recurrent language models (LSTM, GRU, SimpleRNN, mixed stacks): the gates in the
breakdown, closed forms, what each option changes, and Zaremba et al.'s sizes."""

from __future__ import annotations

import pytest
import sympy
from tests._shared import breakdown
from tests._shared import count

from paramcount.core.errors import ConstraintError
from paramcount.core.formula import Term
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_h
from paramcount.model import registry


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
