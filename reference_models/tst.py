"""The time-series transformer (Zerveas et al. 2021) from ``keras.layers``.

``input_projection`` (Dense d_x → d_e), ``position_embedding`` (keras_hub PositionEmbedding over
n steps), ``encoder_layer_i`` (below: ``self_attention``, ``norm_1``, ``ffn_up``, ``ffn_down``,
``norm_2``; post-norm, batch or layer norm), then ``output_head`` (Flatten, Dense(d_y)) or, for
pretraining, ``reconstruction_head`` (Dense(d_x) at every step).
"""

from __future__ import annotations

import keras
import keras_hub

from reference_models._build import stateless


class TSTEncoderLayer(keras.layers.Layer):
    """Post-norm encoder block with batch norm (TST) or layer norm; GELU feed-forward."""

    def __init__(self, d_e: int, heads: int, d_f: int, batch_norm: bool, **kwargs):
        super().__init__(**kwargs)
        norm = (lambda name: keras.layers.BatchNormalization(name=name)) if batch_norm else (
            lambda name: keras.layers.LayerNormalization(name=name))
        self.self_attention = keras.layers.MultiHeadAttention(
            heads, d_e // heads, name="self_attention")
        self.norm_1 = norm("norm_1")
        self.ffn_up = keras.layers.Dense(d_f, activation="gelu", name="ffn_up")
        self.ffn_down = keras.layers.Dense(d_e, name="ffn_down")
        self.norm_2 = norm("norm_2")
        self.d_f = d_f

    def build(self, input_shape):
        self.self_attention.build(input_shape, input_shape)
        self.norm_1.build(input_shape)
        self.ffn_up.build(input_shape)
        self.ffn_down.build((*input_shape[:-1], self.d_f))
        self.norm_2.build(input_shape)

    def call(self, x):
        x = self.norm_1(x + self.self_attention(x, x))
        return self.norm_2(x + self.ffn_down(self.ffn_up(x)))

    def compute_output_shape(self, input_shape):
        return input_shape


def tst(hp: dict[str, int]) -> keras.Model:
    with stateless():
        series = keras.Input(shape=(hp["n"], hp["d_x"]), name="series")
        x = keras.layers.Dense(hp["d_e"], name="input_projection")(series)
        pos = keras_hub.layers.PositionEmbedding(hp["n"], name="position_embedding")(x)
        x = keras.layers.Add(name="add_positions")([x, pos])
        for i in range(hp["L"]):
            x = TSTEncoderLayer(hp["d_e"], hp["M"], hp["d_f"], bool(hp["bn"]),
                                name=f"encoder_layer_{i}")(x)
        if hp["pretrain"]:
            out = keras.layers.Dense(hp["d_x"], name="reconstruction_head")(x)
        else:
            flat = keras.layers.Flatten(name="concatenate_steps")(x)
            out = keras.layers.Dense(hp["d_y"], name="output_head")(flat)
        return keras.Model(series, out, name="tst")
