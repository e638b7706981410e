"""Recurrent LMs from plain ``keras.layers``: Embedding → L × SimpleRNN/LSTM/GRU → Dense(v).

Layers are named ``embedding``, ``rnn_0`` ... ``rnn_{L-1}`` and ``head``; a bidirectional layer is
``keras.layers.Bidirectional`` named ``rnn_i`` around ``forward_rnn_i`` / ``backward_rnn_i``. A
tied output layer is ``keras_hub.layers.ReversibleEmbedding`` called in reverse (no bias).
"""

from __future__ import annotations

import keras
import keras_hub

from reference_models._build import stateless

_LAYERS = {"simple_rnn": keras.layers.SimpleRNN, "lstm": keras.layers.LSTM,
           "gru": keras.layers.GRU}


def recurrent(kind: str, units: int, name: str, *, bidirectional: bool, reset_after: bool = True,
              **kwargs):
    extra = {"reset_after": reset_after} if kind == "gru" else {}
    layer = _LAYERS[kind](units, name=name, **extra, **kwargs)
    return keras.layers.Bidirectional(layer, name=name) if bidirectional else layer


def _lm(kind: str, hp: dict[str, int]) -> keras.Model:
    return _build([(kind, hp["d_h"])] * hp["L"], hp, f"{kind}_lm")


def stack_lm(kinds: tuple[str, ...], hp: dict[str, int]) -> keras.Model:
    """A stack whose layer i is ``kinds[i]`` with ``d_h{i+1}`` units."""
    return _build([(k, hp[f"d_h{i}"]) for i, k in enumerate(kinds, 1)], hp, "stacked_rnn_lm")


def _build(layers: list[tuple[str, int]], hp: dict[str, int], name: str) -> keras.Model:
    with stateless():
        tokens = keras.Input(shape=(None,), dtype="int32", name="token_ids")
        if hp["tied"]:
            table = keras_hub.layers.ReversibleEmbedding(hp["v"], hp["d_e"], tie_weights=True,
                                                         name="embedding")
        else:
            table = keras.layers.Embedding(hp["v"], hp["d_e"], name="embedding")
        x = table(tokens)
        for i, (kind, units) in enumerate(layers):
            x = recurrent(kind, units, f"rnn_{i}", bidirectional=bool(hp["bi"]),
                          reset_after=bool(hp.get("reset_after", 1)), return_sequences=True)(x)
        logits = table(x, reverse=True) if hp["tied"] else keras.layers.Dense(
            hp["v_out"], name="head")(x)
        return keras.Model(tokens, logits, name=name)


def simple_rnn_lm(hp: dict[str, int]) -> keras.Model:
    return _lm("simple_rnn", hp)


def lstm_lm(hp: dict[str, int]) -> keras.Model:
    return _lm("lstm", hp)


def gru_lm(hp: dict[str, int]) -> keras.Model:
    return _lm("gru", hp)
