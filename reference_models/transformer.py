"""The paper's generic transformer LMs, from ``keras_hub.layers`` building blocks.

Token and learned position embeddings, ``L`` blocks, and an untied output layer to the vocabulary
(``Dense(v)`` with bias), which is what makes the stack a language model.
"""

from __future__ import annotations

import keras
import keras_hub

from reference_models._build import stateless


def _stack(hp: dict[str, int], block) -> keras.Model:
    with stateless():
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
