"""nanoGPT's GPT (Karpathy, github.com/karpathy/nanoGPT, model.py) in plain ``keras.layers``.

KerasHub's GPT2Backbone has no bias switch, so this builds nanoGPT's own structure, layer by layer
and under its names: ``wte`` / ``wpe`` embeddings, ``h_i`` blocks (``ln_1``, ``attn`` with one
fused ``c_attn`` projection to queries, keys and values and ``c_proj``, ``ln_2``, ``mlp`` with
``c_fc`` and ``c_proj``), ``ln_f``, and the head tied to ``wte`` (``lm_head.weight = wte.weight``).
``bias`` switches the biases of every linear layer and layer norm together, as nanoGPT's
``GPTConfig.bias`` does (its LayerNorm keeps the scale and drops the shift).
"""

from __future__ import annotations

import keras
from keras import ops

from reference_models._build import stateless


class CausalSelfAttention(keras.layers.Layer):
    def __init__(self, d_e: int, heads: int, bias: bool, **kwargs):
        super().__init__(**kwargs)
        self.heads, self.d_e = heads, d_e
        self.c_attn = keras.layers.Dense(3 * d_e, use_bias=bias, name="c_attn")
        self.c_proj = keras.layers.Dense(d_e, use_bias=bias, name="c_proj")

    def build(self, input_shape):
        self.c_attn.build(input_shape)
        self.c_proj.build(input_shape)

    def call(self, x):
        b, t = ops.shape(x)[0], ops.shape(x)[1]
        q, k, v = ops.split(self.c_attn(x), 3, axis=-1)
        heads = lambda z: ops.transpose(  # noqa: E731 - (B, T, d_e) -> (B, heads, T, d_e/heads)
            ops.reshape(z, (b, t, self.heads, self.d_e // self.heads)), (0, 2, 1, 3))
        scores = ops.matmul(heads(q), ops.transpose(heads(k), (0, 1, 3, 2)))
        scores = scores / ops.sqrt(ops.cast(self.d_e // self.heads, scores.dtype))
        causal = ops.tril(ops.ones((t, t), dtype="bool"))
        scores = ops.where(causal, scores, ops.full_like(scores, -1e9))
        y = ops.matmul(ops.softmax(scores, axis=-1), heads(v))
        return self.c_proj(ops.reshape(ops.transpose(y, (0, 2, 1, 3)), (b, t, self.d_e)))

    def compute_output_shape(self, input_shape):
        return input_shape


class Block(keras.layers.Layer):
    def __init__(self, d_e: int, heads: int, d_f: int, bias: bool, **kwargs):
        super().__init__(**kwargs)
        self.d_f = d_f
        self.ln_1 = keras.layers.LayerNormalization(epsilon=1e-5, center=bias, name="ln_1")
        self.attn = CausalSelfAttention(d_e, heads, bias, name="attn")
        self.ln_2 = keras.layers.LayerNormalization(epsilon=1e-5, center=bias, name="ln_2")
        self.c_fc = keras.layers.Dense(d_f, use_bias=bias, activation="gelu", name="mlp_c_fc")
        self.c_proj = keras.layers.Dense(d_e, use_bias=bias, name="mlp_c_proj")

    def build(self, input_shape):
        for layer in (self.ln_1, self.attn, self.ln_2, self.c_fc):
            layer.build(input_shape)
        self.c_proj.build((*input_shape[:-1], self.d_f))

    def call(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.c_proj(self.c_fc(self.ln_2(x)))

    def compute_output_shape(self, input_shape):
        return input_shape


class AddPositions(keras.layers.Layer):
    """``tok_emb + wpe(arange(t))``: the position table, looked up inside the graph."""

    def __init__(self, n: int, d_e: int, **kwargs):
        super().__init__(**kwargs)
        self.wpe = keras.layers.Embedding(n, d_e, name="wpe")

    def build(self, input_shape):
        self.wpe.build((input_shape[1],))

    def call(self, x):
        return x + self.wpe(ops.arange(ops.shape(x)[1]))

    def compute_output_shape(self, input_shape):
        return input_shape


class TiedHead(keras.layers.Layer):
    """``lm_head``: logits = x · wteᵀ, the token table reused (no weight of its own)."""

    def __init__(self, table: keras.layers.Embedding, **kwargs):
        super().__init__(**kwargs)
        self.table = table

    def call(self, x):
        return ops.matmul(x, ops.transpose(self.table.embeddings))

    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], self.table.input_dim)


def gpt(hp: dict[str, int]) -> keras.Model:
    bias = bool(hp["bias"])
    with stateless():
        tokens = keras.Input(shape=(hp["n"],), dtype="int32", name="idx")
        wte = keras.layers.Embedding(hp["v"], hp["d_e"], name="wte")
        x = AddPositions(hp["n"], hp["d_e"], name="positions")(wte(tokens))
        for i in range(hp["L"]):
            x = Block(hp["d_e"], hp["M"], hp["d_f"], bias, name=f"h_{i}")(x)
        x = keras.layers.LayerNormalization(epsilon=1e-5, center=bias, name="ln_f")(x)
        logits = TiedHead(wte, name="lm_head")(x)
        return keras.Model(tokens, logits, name="nanogpt")
