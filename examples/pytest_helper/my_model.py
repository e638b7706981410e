"""A user's own project code: a small GPT-2-style chat model, configured in one place.

This stands for the module of your project that builds your Keras model. Nothing here knows
about paramcount; the tests beside it check the model against the formula.
"""

from __future__ import annotations

import keras
import keras_hub

# The configuration your project ships with (what you would put in a config file).
CONFIG = dict(vocabulary_size=1000, max_sequence_length=64, hidden_dim=64, num_heads=4,
              intermediate_dim=256, num_layers=2)


def build_backbone(**overrides) -> keras_hub.models.GPT2Backbone:
    return keras_hub.models.GPT2Backbone(**{**CONFIG, **overrides})


def build_chat_model(**overrides) -> keras_hub.models.GPT2CausalLM:
    """The backbone plus its language-model head (tied to the token embedding)."""
    return keras_hub.models.GPT2CausalLM(backbone=build_backbone(**overrides), preprocessor=None)


def build_own_blocks(**overrides) -> keras.Model:
    """The same model built block by block, under this project's own layer names
    (``decoder_block_i``, ``final_norm``, where GPT2Backbone says ``transformer_layer_i``,
    ``layer_norm``)."""
    c = {**CONFIG, **overrides}
    ids = keras.Input((None,), dtype="int32")
    x = keras_hub.layers.TokenAndPositionEmbedding(c["vocabulary_size"], c["max_sequence_length"],
                                                   c["hidden_dim"], name="embed")(ids)
    for i in range(c["num_layers"]):
        x = keras_hub.layers.TransformerDecoder(c["intermediate_dim"], c["num_heads"],
                                                normalize_first=True, activation="gelu",
                                                layer_norm_epsilon=1e-5,
                                                name=f"decoder_block_{i}")(x)
    x = keras.layers.LayerNormalization(epsilon=1e-5, name="final_norm")(x)
    return keras.Model(ids, x, name="own_blocks")
