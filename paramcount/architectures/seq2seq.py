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
direction's states, and attention reads 2·d_h-wide encoder outputs.
"""

from __future__ import annotations

from paramcount.components import dense, embedding
from paramcount.components.recurrent import bi, recurrent_stack
from paramcount.formula import group, leaf, zero
from paramcount.registry import Architecture, register
from paramcount.symbols import L_dec, L_enc, d_e, d_h, declare

v_src = declare("v_src", "source vocabulary size")
v_tgt = declare("v_tgt", "target vocabulary size")
d_a = declare("d_a", "width of additive (Bahdanau) attention: its alignment layer's units")

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
    title="LSTM encoder-decoder (Sutskever et al. 2014): L_enc + L_dec LSTM layers, softmax",
    source="Sutskever, Vinyals & Le 2014, section 3.4; keras.layers.LSTM",
    formula=group(
        "seq2seq_lstm",
        *_encoder_decoder(),
        zero("state_passing", "decoder layers start from the encoder layers' final (h, c), "
                              "aligned at the top: a copy, no weights", kind="recurrent"),
        dense("head", d_h, v_tgt, match="head", kind="head", note="Dense(d_h → v_tgt) with bias"),
    ),
    optional={bi: 0},
    reference="reference_models.seq2seq:seq2seq_lstm",
    counting="trainable weights: source and target embeddings, encoder and decoder LSTM layers "
             "(one bias per gate, Keras' convention), output layer",
    required=_REQUIRED,
    presets="seq2seq",
    examples={
        "tiny": dict(v_src=50, v_tgt=40, d_e=8, d_h=12, L_enc=2, L_dec=2),
        "odd_sizes": dict(v_src=37, v_tgt=29, d_e=7, d_h=5, L_enc=3, L_dec=1),
        "deeper_decoder": dict(v_src=31, v_tgt=41, d_e=6, d_h=9, L_enc=1, L_dec=3),
        "bidirectional_encoder": dict(v_src=31, v_tgt=41, d_e=6, d_h=9, L_enc=3, L_dec=2, bi=1),
    },
    family="paper",
))

register(Architecture(
    id="seq2seq_attention",
    title="LSTM encoder-decoder with Bahdanau additive attention; context joins the softmax input",
    source="Bahdanau, Cho & Bengio 2015, appendix A; keras.layers.AdditiveAttention",
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
        dense("head", d_h + _enc_width, v_tgt, match="head", kind="head",
              note="Dense([decoder output; context] → v_tgt) with bias"),
    ),
    required=(*_REQUIRED, d_a),
    optional={bi: 0},
    reference="reference_models.seq2seq:seq2seq_attention",
    counting="trainable weights: embeddings, encoder and decoder LSTM layers, additive attention "
             "(W_a, U_a, v_a), output layer over [decoder output; context]",
    examples={
        "tiny": dict(v_src=50, v_tgt=40, d_e=8, d_h=12, L_enc=2, L_dec=2, d_a=10),
        "odd_sizes": dict(v_src=37, v_tgt=29, d_e=7, d_h=5, L_enc=3, L_dec=1, d_a=3),
        "bidirectional_encoder": dict(v_src=31, v_tgt=41, d_e=6, d_h=9, L_enc=2, L_dec=3,
                                      d_a=7, bi=1),
        # Bahdanau et al.'s sizes (30k vocabularies, 620-d embeddings, 1000 units, alignment
        # width 1000, bidirectional encoder) with LSTM layers in place of their gated units.
        "bahdanau_sizes_lstm": dict(v_src=30000, v_tgt=30000, d_e=620, d_h=1000, L_enc=1,
                                    L_dec=1, d_a=1000, bi=1),
    },
    family="paper",
))
