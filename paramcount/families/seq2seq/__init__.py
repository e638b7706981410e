"""LSTM sequence-to-sequence models: Sutskever et al. 2014, and with Bahdanau attention.

``seq2seq_lstm``: source embedding (v_src × d_e) → L_enc LSTM layers; target embedding
(v_tgt × d_e) → L_dec LSTM layers started from the encoder layers' final states → Dense(v_tgt).
Passing states costs nothing, but needs equal widths: both stacks have d_h units. With equal depths
(Sutskever's 4 + 4) layer i starts from layer i; otherwise the stacks are aligned at the top (the
top decoder layer from the top encoder layer, and so down), so every encoder layer is used.

``seq2seq_attention``: the same, with Bahdanau et al.'s additive attention over the encoder's
outputs, e_tj = v_aᵀ·tanh(W_a·s_t + U_a·h_j) (W_a, U_a without biases, d_a wide), and the context
vector concatenated to the decoder's output before the softmax layer.

Option ``bi``: a bidirectional encoder (Bahdanau's choice); the decoder starts from the forward
direction's states, and attention reads 2·d_h-wide encoder outputs. The output layer is
``v_out`` wide: the target vocabulary unless set otherwise.

Stacks whose layers differ are data: :func:`stacked_seq2seq` takes the encoder's and the
decoder's cell types in order; encoder layer i is d_enc{i} wide, and a decoder layer takes the
width of the encoder layer it starts from (aligned at the top; its state must fit: an LSTM's
(h, c) only an LSTM, a GRU's or SimpleRNN's h a GRU or SimpleRNN), the decoder layers below the
encoder's depth their own d_dec{j}. ``mixed_seq2seq`` is one.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.formula import zero
from paramcount.core.symbols import L_dec
from paramcount.core.symbols import L_enc
from paramcount.core.symbols import d_a
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_h
from paramcount.core.symbols import layer_symbol
from paramcount.core.symbols import v_src
from paramcount.core.symbols import v_tgt
from paramcount.model.components import dense
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

IDS = ("mixed_seq2seq", "seq2seq_attention", "seq2seq_lstm")  # the ids this folder registers


_enc_width = (1 + bi) * d_h


def _encoder_decoder():
    return (
        group("embeddings",
              embedding("source", v_src, match="source_embedding"),
              embedding("target", v_tgt, match="target_embedding")),
        recurrent_stack("encoder", "lstm", d_in=d_e, layers=L_enc, directions=1 + bi,
                        prefix="encoder_lstm"),
        recurrent_stack("decoder", "lstm", d_in=d_e, layers=L_dec, prefix="decoder_lstm"),
    )


_REQUIRED = (v_src, v_tgt, d_e, d_h, L_enc, L_dec)

register(Architecture(
    id="seq2seq_lstm",
    formula=group(
        "seq2seq_lstm",
        *_encoder_decoder(),
        zero("state_passing", "decoder layers start from the encoder layers' final (h, c), "
                              "aligned at the top: a copy, no weights", kind="recurrent"),
        dense("head", d_h, v_out, match="head", kind="head",
              note="Dense(d_h → v_out) with bias; v_out = v_tgt unless set"),
    ),
    optional={bi: 0, v_out: v_tgt},
    reference="reference_models.seq2seq:seq2seq_lstm",
    required=_REQUIRED,
    presets="seq2seq",
    family="paper",
))

register(Architecture(
    id="seq2seq_attention",
    formula=group(
        "seq2seq_attention",
        *_encoder_decoder(),
        zero("state_passing", "decoder layers start from the encoder layers' final (h, c), "
                              "aligned at the top (the forward direction's when bidirectional): "
                              "a copy, no weights", kind="recurrent"),
        group(
            "attention",
            leaf("query", d_h * d_a, match="attention_query",
                 note="W_a: decoder state → d_a, no bias"),
            leaf("key", _enc_width * d_a, match="attention_key",
                 note="U_a: encoder output ((1+bi)·d_h) → d_a, no bias"),
            leaf("score", d_a, match="attention",
                 note="v_a: the d_a weights that turn tanh(W_a·s + U_a·h) into a score "
                      "(AdditiveAttention's scale)"),
            zero("context", "softmax-weighted sum of the encoder outputs: no weights"),
            kind="attention",
        ),
        dense("head", d_h + _enc_width, v_out, match="head", kind="head",
              note="Dense([decoder output; context] → v_out) with bias; v_out = v_tgt unless set"),
    ),
    required=(*_REQUIRED, d_a),
    optional={bi: 0, v_out: v_tgt},
    reference="reference_models.seq2seq:seq2seq_attention",
    family="paper",
))


def _state(kind: str) -> str:
    return "(h, c)" if kind == "lstm" else "h"


def stacked_seq2seq(encoder: Sequence[str], decoder: Sequence[str], *, id: str,
                    title: str | None = None,
                    examples: Mapping[str, Mapping[str, int]] | None = None) -> Architecture:
    """A recurrent encoder-decoder whose layers are given as data (cell types, bottom first)."""
    encoder, decoder = tuple(encoder), tuple(decoder)
    if not encoder or not decoder or any(k not in GATES for k in encoder + decoder):
        raise ValueError(f"{id}: cell types must be among {', '.join(GATES)} "
                         f"(got {encoder} and {decoder})")
    enc_w = [layer_symbol("d_enc", i) for i in range(1, len(encoder) + 1)]
    offset = len(encoder) - len(decoder)  # decoder layer j starts from encoder layer j + offset
    dec_w = []
    for j, kind in enumerate(decoder):
        i = j + offset
        if i < 0:
            dec_w.append(layer_symbol("d_dec", j + 1))
        elif _state(kind) != _state(encoder[i]):
            raise ValueError(f"{id}: decoder layer {j + 1} ({kind}) cannot start from encoder "
                             f"layer {i + 1} ({encoder[i]}): state {_state(encoder[i])} is not "
                             f"{_state(kind)}")
        else:
            dec_w.append(enc_w[i])
    optional = {bi: 0, v_out: v_tgt}
    if "gru" in encoder + decoder:
        optional[reset_after] = 1
    return Architecture(
        id=id,
        title=title or (f"RNN encoder-decoder, encoder {' → '.join(encoder)}, decoder "
                        f"{' → '.join(decoder)} (layers as data)"),
        source="Sutskever, Vinyals & Le 2014, generalised: layers declared as data; "
               "keras.layers.{SimpleRNN,LSTM,GRU}",
        formula=group(
            id,
            group("embeddings",
                  embedding("source", v_src, match="source_embedding"),
                  embedding("target", v_tgt, match="target_embedding")),
            layered_stack("encoder", tuple(zip(encoder, enc_w, strict=True)), d_in=d_e, directions=1 + bi,
                          prefix="encoder_rnn"),
            layered_stack("decoder", tuple(zip(decoder, dec_w, strict=True)), d_in=d_e, prefix="decoder_rnn"),
            zero("state_passing", "decoder layers start from the encoder layers' final states, "
                                  "aligned at the top: a copy, no weights", kind="recurrent"),
            dense("head", dec_w[-1], v_out, match="head", kind="head",
                  note="Dense(top decoder layer → v_out) with bias; v_out = v_tgt unless set"),
        ),
        required=(v_src, v_tgt, d_e, *dict.fromkeys(enc_w + dec_w)),
        optional=optional,
        reference=Named("reference_models.seq2seq:stacked_seq2seq", (encoder, decoder)),
        counting="trainable weights: source and target embeddings, the encoder and decoder "
                 "layers as declared, output layer",
        examples=dict(examples or {}),
        family="paper",
    )


register(stacked_seq2seq(
    ("lstm", "gru", "simple_rnn"), ("gru", "simple_rnn"),
    id="mixed_seq2seq",
))
