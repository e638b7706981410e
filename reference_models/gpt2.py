"""GPT-2: KerasHub's GPT2Backbone and GPT2CausalLM."""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table, stateless_task


def backbone(hp: dict[str, int]):
    return from_table("gpt2", keras_hub.models.GPT2Backbone, hp)


def causal_lm(hp: dict[str, int]):
    # The LM head reuses the token embedding (ReversibleEmbedding): no weights of its own.
    return stateless_task(keras_hub.models.GPT2CausalLM, backbone=backbone(hp),
                          preprocessor=None)
