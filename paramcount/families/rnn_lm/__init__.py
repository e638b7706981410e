"""Recurrent language models (the paper's RNN LM section): SimpleRNN, LSTM and GRU stacks.

Embedding(v, d_e) → L stacked recurrent layers of d_h units (every step's output passed on) →
Dense(v). Options, as 0/1 flags: ``bi`` (bidirectional layers: forward and backward copies, the
next layer reads 2·d_h), ``tied`` (the output layer is the embedding table transposed; needs the
last layer's output to be d_e wide) and, for the GRU, ``reset_after`` (Keras' default). The
output layer is ``v_out`` wide: the vocabulary v by default, anything else when the head predicts
something else (classes, a shortlist).

Stacks whose layers differ in width or cell type are data: :func:`stacked_rnn_lm` takes the cell
types in order and gives layer i its own width symbol ``d_h{i}`` (``("lstm", "gru")``: an LSTM of
d_h1 units under a GRU of d_h2). ``mixed_rnn_lm`` is one (LSTM, GRU, SimpleRNN); register others
from a plugin module: ``register(stacked_rnn_lm(("lstm", "lstm", "gru"), id="my_lm"))``.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.hparams import Relation
from paramcount.core.restrictions import Holds
from paramcount.core.symbols import L
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_h
from paramcount.core.symbols import layer_symbol
from paramcount.core.symbols import tied
from paramcount.core.symbols import v
from paramcount.model.components import embedding
from paramcount.model.components.recurrent import GATES
from paramcount.model.components.recurrent import bi
from paramcount.model.components.recurrent import layered_stack
from paramcount.model.components.recurrent import recurrent_stack
from paramcount.model.components.recurrent import reset_after
from paramcount.model.components.recurrent import v_out
from paramcount.model.registry import Architecture
from paramcount.model.registry import register
from paramcount.model.weights import Named

IDS = ("gru_lm", "lstm_lm", "mixed_rnn_lm", "simple_rnn_lm")  # the ids this folder registers


_TITLES = {
    "simple_rnn": "SimpleRNN (Elman)",
    "lstm": "LSTM (Hochreiter & Schmidhuber 1997)",
    "gru": "GRU (Cho et al. 2014)",
}


def _head(width):
    return leaf("head", (1 - tied) * (width * v_out + v_out), match="head", kind="head",
                note="Dense(last layer's output → v_out) with bias; 0 when tied = 1: the logits "
                     "are the output times the embedding table, transposed (counted once, in "
                     "embeddings)")


def _constraints(last_width):
    return (
        Relation(last_width, "==", d_e, when=tied,
                 reason="a tied output layer maps the last layer's output through the embedding "
                        "table"),
        Relation(v_out, "==", v, when=tied, reason="a tied output layer predicts the vocabulary"),
    )


def formula(kind: str):
    width = (1 + bi) * d_h  # the last layer's output: both directions concatenated
    return group(
        f"{kind}_lm",
        group("embeddings", embedding("token", v, match="embedding")),
        recurrent_stack("rnn", kind, d_in=d_e, layers=L, directions=1 + bi, prefix="rnn"),
        _head(width),
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
        "output_width_not_v": dict(v=101, d_e=16, d_h=24, L=2, v_out=7),
    }
    if kind == "gru":
        ex["reset_before"] = dict(v=71, d_e=10, d_h=9, L=2, reset_after=0)
        ex["reset_before_bidirectional"] = dict(v=71, d_e=10, d_h=9, L=2, bi=1, reset_after=0)
    return ex


for _kind in ("simple_rnn", "lstm", "gru"):
    _optional = {bi: 0, tied: 0, v_out: v}
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
        restrictions=(
            *Holds.each(_constraints((1 + bi) * d_h)),
        ),
        reference=f"reference_models.rnn_lm:{_kind}_lm",
        counting="trainable weights: token embedding, L recurrent layers (Keras: one bias per "
                 "gate; GRU with reset_after two), output layer (none of its own when tied)",
        presets="rnn_lm" if _kind == "lstm" else None,
        examples=_examples(_kind),
        family="paper",
    ))


def stacked_rnn_lm(kinds: Sequence[str], *, id: str, title: str | None = None,
                   examples: Mapping[str, Mapping[str, int]] | None = None) -> Architecture:
    """An RNN LM whose layers are given as data: ``kinds[i]`` is layer i+1's cell type
    (``simple_rnn``, ``lstm``, ``gru``), ``d_h{i+1}`` its width. Same options as the uniform LMs
    (``bi``, ``tied``, ``v_out``, and ``reset_after`` when a GRU is among the layers)."""
    kinds = tuple(kinds)
    unknown = [k for k in kinds if k not in GATES]
    if not kinds or unknown:
        raise ValueError(f"{id}: cell types must be among {', '.join(GATES)} (got {kinds})")
    widths = [layer_symbol("d_h", i) for i in range(1, len(kinds) + 1)]
    optional = {bi: 0, tied: 0, v_out: v}
    if "gru" in kinds:
        optional[reset_after] = 1
    return Architecture(
        id=id,
        title=title or f"RNN LM with layers {' → '.join(kinds)}, each of its own width",
        source="Saleh & Paquelet 2024 (RNN LMs), layers declared as data; keras.layers."
               "{SimpleRNN,LSTM,GRU}",
        formula=group(
            id,
            group("embeddings", embedding("token", v, match="embedding")),
            layered_stack("rnn", tuple(zip(kinds, widths, strict=True)), d_in=d_e, directions=1 + bi,
                          prefix="rnn"),
            _head((1 + bi) * widths[-1]),
        ),
        required=(v, d_e, *widths),
        optional=optional,
        restrictions=(
            *Holds.each(_constraints((1 + bi) * widths[-1])),
        ),
        reference=Named("reference_models.rnn_lm:stack_lm", (kinds,)),
        counting="trainable weights: token embedding, the recurrent layers as declared (Keras: "
                 "one bias per gate; GRU with reset_after two), output layer (none when tied)",
        examples=dict(examples or {}),
        family="paper",
    )


register(stacked_rnn_lm(
    ("lstm", "gru", "simple_rnn"),
    id="mixed_rnn_lm",
))
