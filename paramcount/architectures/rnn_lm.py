"""Recurrent language models (the paper's RNN LM section): SimpleRNN, LSTM and GRU stacks.

Embedding(v, d_e) → L stacked recurrent layers of d_h units (every step's output passed on) →
Dense(v). Options, as 0/1 flags: ``bi`` (bidirectional layers: forward and backward copies, the
next layer reads 2·d_h), ``tied`` (the output layer is the embedding table transposed; needs the
last layer's output to be d_e wide) and, for the GRU, ``reset_after`` (Keras' default).
"""

from __future__ import annotations

from paramcount.components import embedding
from paramcount.components.recurrent import bi, recurrent_stack, reset_after
from paramcount.formula import group, leaf
from paramcount.hparams import Relation
from paramcount.registry import Architecture, register
from paramcount.symbols import L, d_e, d_h, declare, v

tied = declare("tied", "1 when the output layer reuses the token embedding, transposed (weight "
                       "tying), else 0", flag=True)

_TITLES = {
    "simple_rnn": "SimpleRNN (Elman)",
    "lstm": "LSTM (Hochreiter & Schmidhuber 1997)",
    "gru": "GRU (Cho et al. 2014)",
}


def formula(kind: str):
    width = (1 + bi) * d_h  # the last layer's output: both directions concatenated
    return group(
        f"{kind}_lm",
        group("embeddings", embedding("token", v, match="embedding")),
        recurrent_stack("rnn", kind, d_in=d_e, layers=L, directions=1 + bi, prefix="rnn"),
        leaf("head", (1 - tied) * (width * v + v), match="head", kind="head",
             note="Dense((1+bi)·d_h → v) with bias; 0 when tied = 1: the logits are the output "
                  "times the embedding table, transposed (counted once, in embeddings)"),
    )


def _examples(kind: str) -> dict[str, dict[str, int]]:
    ex = {
        "tiny": dict(v=101, d_e=16, d_h=24, L=2),
        "one_layer": dict(v=50, d_e=7, d_h=5, L=1),
        "odd_three_layers": dict(v=97, d_e=13, d_h=11, L=3),
        "bidirectional": dict(v=61, d_e=9, d_h=7, L=3, bi=1),
        "tied": dict(v=83, d_e=12, d_h=12, L=2, tied=1),
        "tied_bidirectional": dict(v=83, d_e=12, d_h=6, L=2, bi=1, tied=1),
        "two_layer_1024_v10k": dict(v=10000, d_e=1024, d_h=1024, L=2),
    }
    if kind == "gru":
        ex["reset_before"] = dict(v=71, d_e=10, d_h=9, L=2, reset_after=0)
        ex["reset_before_bidirectional"] = dict(v=71, d_e=10, d_h=9, L=2, bi=1, reset_after=0)
    return ex


for _kind in ("simple_rnn", "lstm", "gru"):
    _optional = {bi: 0, tied: 0}
    if _kind == "gru":
        _optional[reset_after] = 1
    register(Architecture(
        id=f"{_kind}_lm",
        title=f"{_TITLES[_kind]} LM: embedding, L stacked layers of d_h units, output layer",
        source="Saleh & Paquelet 2024 (RNN LMs); Mikolov et al. 2010; Zaremba et al. 2014; "
               "keras.layers." + {"simple_rnn": "SimpleRNN", "lstm": "LSTM", "gru": "GRU"}[_kind],
        formula=formula(_kind),
        required=(v, d_e, d_h, L),
        optional=_optional,
        constraints=(Relation((1 + bi) * d_h, "==", d_e, when=tied,
                              reason="a tied output layer maps the last layer's output through "
                                     "the embedding table"),),
        reference=f"reference_models.rnn_lm:{_kind}_lm",
        counting="trainable weights: token embedding, L recurrent layers (Keras: one bias per "
                 "gate; GRU with reset_after two), output layer (none of its own when tied)",
        presets="rnn_lm" if _kind == "lstm" else None,
        examples=_examples(_kind),
        family="paper",
    ))
