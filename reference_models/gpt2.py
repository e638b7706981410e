"""GPT-2: KerasHub's GPT2Backbone and GPT2CausalLM."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone, stateless_task


def backbone(hp: dict[str, int]):
    return stateless_backbone(
        keras_hub.models.GPT2Backbone,
        vocabulary_size=hp["v"],
        num_layers=hp["L"],
        num_heads=hp["M"],
        hidden_dim=hp["d_e"],
        intermediate_dim=hp["d_f"],
        max_sequence_length=hp["n"],
    )


def causal_lm(hp: dict[str, int]):
    # The LM head reuses the token embedding (ReversibleEmbedding): no weights of its own.
    return stateless_task(keras_hub.models.GPT2CausalLM, backbone=backbone(hp),
                          preprocessor=None)
