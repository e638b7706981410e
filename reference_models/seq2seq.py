"""LSTM encoder-decoders from plain ``keras.layers`` (Sutskever et al. 2014; Bahdanau et al. 2015).

Layers: ``source_embedding``, ``encoder_lstm_0`` ..., ``target_embedding``, ``decoder_lstm_0`` ...,
``head``; with attention also ``attention_query`` (W_a), ``attention_key`` (U_a) and ``attention``
(``keras.layers.AdditiveAttention`` with ``use_scale``: its scale vector is v_a).
The decoder layers start from the encoder layers' final (h, c), the stacks aligned at the top
(layer i from layer i at equal depths), so every encoder layer is connected to the output.
"""

from __future__ import annotations

import keras

from reference_models._build import stateless
from reference_models.rnn_lm import recurrent


def _encode_decode(hp: dict[str, int]):
    source = keras.Input(shape=(None,), dtype="int32", name="source_ids")
    target = keras.Input(shape=(None,), dtype="int32", name="target_ids")
    bidirectional = bool(hp["bi"])
    x = keras.layers.Embedding(hp["v_src"], hp["d_e"], name="source_embedding")(source)
    states = []
    for i in range(hp["L_enc"]):
        x, *s = recurrent("lstm", hp["d_h"], f"encoder_lstm_{i}", bidirectional=bidirectional,
                          return_sequences=True, return_state=True)(x)
        states.append(s[:2])  # (h, c), of the forward direction when bidirectional
    y = keras.layers.Embedding(hp["v_tgt"], hp["d_e"], name="target_embedding")(target)
    offset = hp["L_enc"] - hp["L_dec"]
    for i in range(hp["L_dec"]):
        init = states[i + offset] if i + offset >= 0 else None
        y = keras.layers.LSTM(hp["d_h"], return_sequences=True, name=f"decoder_lstm_{i}")(
            y, initial_state=init)
    return (source, target), x, y


def seq2seq_lstm(hp: dict[str, int]) -> keras.Model:
    with stateless():
        inputs, _, y = _encode_decode(hp)
        logits = keras.layers.Dense(hp["v_out"], name="head")(y)
        return keras.Model(inputs, logits, name="seq2seq_lstm")


def seq2seq_attention(hp: dict[str, int]) -> keras.Model:
    with stateless():
        inputs, enc, y = _encode_decode(hp)
        query = keras.layers.Dense(hp["d_a"], use_bias=False, name="attention_query")(y)
        keys = keras.layers.Dense(hp["d_a"], use_bias=False, name="attention_key")(enc)
        context = keras.layers.AdditiveAttention(use_scale=True, name="attention")(
            [query, enc, keys])
        joined = keras.layers.Concatenate(name="concat_context")([y, context])
        logits = keras.layers.Dense(hp["v_out"], name="head")(joined)
        return keras.Model(inputs, logits, name="seq2seq_attention")


def stacked_seq2seq(encoder: tuple[str, ...], decoder: tuple[str, ...],
                    hp: dict[str, int]) -> keras.Model:
    """Encoder layer i (``encoder_rnn_{i}``) is ``encoder[i]`` of ``d_enc{i+1}`` units; decoder
    layer j (``decoder_rnn_{j}``) starts from the encoder layer aligned with it at the top (its
    forward direction's state) and has that layer's width, or ``d_dec{j+1}`` below it."""
    with stateless():
        source = keras.Input(shape=(None,), dtype="int32", name="source_ids")
        target = keras.Input(shape=(None,), dtype="int32", name="target_ids")
        x = keras.layers.Embedding(hp["v_src"], hp["d_e"], name="source_embedding")(source)
        states, widths = [], []
        for i, kind in enumerate(encoder):
            units = hp[f"d_enc{i + 1}"]
            x, *s = recurrent(kind, units, f"encoder_rnn_{i}", bidirectional=bool(hp["bi"]),
                              reset_after=bool(hp.get("reset_after", 1)),
                              return_sequences=True, return_state=True)(x)
            states.append(s[:2] if kind == "lstm" else s[:1])
            widths.append(units)
        y = keras.layers.Embedding(hp["v_tgt"], hp["d_e"], name="target_embedding")(target)
        offset = len(encoder) - len(decoder)
        for j, kind in enumerate(decoder):
            i = j + offset
            units = widths[i] if i >= 0 else hp[f"d_dec{j + 1}"]
            layer = recurrent(kind, units, f"decoder_rnn_{j}", bidirectional=False,
                              reset_after=bool(hp.get("reset_after", 1)), return_sequences=True)
            y = layer(y, initial_state=states[i]) if i >= 0 else layer(y)
        logits = keras.layers.Dense(hp["v_out"], name="head")(y)
        return keras.Model((source, target), logits, name="stacked_seq2seq")
