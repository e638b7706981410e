"""The paper's generic transformer LMs, from ``keras_hub.layers`` building blocks.

Token and learned position embeddings, ``L`` blocks, and an untied output layer to the vocabulary
(``Dense(v)`` with bias), which is what makes the stack a language model.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import keras
import keras_hub

from reference_models._build import stateless


@contextlib.contextmanager
def _attention_options(hp: dict[str, int]) -> Iterator[None]:
    """KerasHub's blocks create their attention as ``MultiHeadAttention(num_heads, key_dim=d_e //
    M)`` (the decoder's CachedMultiHeadAttention is a subclass) and expose no head width or bias
    option. For the paper's free d_k, d_v and ζ, the blocks are built while that constructor
    receives key_dim = d_k, value_dim = d_v and use_bias = ζ: the same blocks, with the
    attention those options give. KerasHub's own values build the blocks untouched."""
    if (hp["d_k"], hp["d_v"], hp["zeta"]) == (hp["d_e"] // hp["M"],) * 2 + (1,):
        yield
        return
    mha = keras.layers.MultiHeadAttention
    original = mha.__init__

    def init(self, *args, **kwargs):
        kwargs.update(key_dim=hp["d_k"], value_dim=hp["d_v"], use_bias=bool(hp["zeta"]))
        original(self, *args, **kwargs)

    mha.__init__ = init
    try:
        yield
    finally:
        mha.__init__ = original


def _stack(hp: dict[str, int], block) -> keras.Model:
    with stateless(), _attention_options(hp):
        tokens = keras.Input(shape=(hp["n"],), dtype="int32", name="token_ids")
        x = keras_hub.layers.TokenAndPositionEmbedding(
            vocabulary_size=hp["v"], sequence_length=hp["n"], embedding_dim=hp["d_e"],
            name="embeddings",
        )(tokens)
        for i in range(hp["L"]):
            x = block(hp, i)(x)
        logits = keras.layers.Dense(hp["v"], name="lm_head")(x)
        return keras.Model(tokens, logits, name="transformer_lm")


def encoder(hp: dict[str, int]) -> keras.Model:
    return _stack(hp, lambda hp, i: keras_hub.layers.TransformerEncoder(
        intermediate_dim=hp["d_f"], num_heads=hp["M"], name=f"transformer_layer_{i}"))


def decoder(hp: dict[str, int]) -> keras.Model:
    return _stack(hp, lambda hp, i: keras_hub.layers.TransformerDecoder(
        intermediate_dim=hp["d_f"], num_heads=hp["M"], name=f"transformer_layer_{i}"))
