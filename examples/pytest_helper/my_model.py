"""A user's own project code: a small GPT-2-style chat model, configured in one place.

This stands for the module of your project that builds your Keras model. Nothing here knows
about paramcount; the tests beside it check the model against the formula.
"""

from __future__ import annotations

import keras_hub

# The configuration your project ships with (what you would put in a config file).
CONFIG = dict(vocabulary_size=1000, max_sequence_length=64, hidden_dim=64, num_heads=4,
              intermediate_dim=256, num_layers=2)


def build_backbone(**overrides) -> keras_hub.models.GPT2Backbone:
    return keras_hub.models.GPT2Backbone(**{**CONFIG, **overrides})


def build_chat_model(**overrides) -> keras_hub.models.GPT2CausalLM:
    """The backbone plus its language-model head (tied to the token embedding)."""
    return keras_hub.models.GPT2CausalLM(backbone=build_backbone(**overrides), preprocessor=None)
