"""Llama 2: KerasHub's LlamaBackbone, built from constructor arguments (nothing downloaded)."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone


def backbone(hp: dict[str, int], cls=None):
    return stateless_backbone(
        cls or keras_hub.models.LlamaBackbone,
        vocabulary_size=hp["v"],
        num_layers=hp["L"],
        num_query_heads=hp["M"],
        num_key_value_heads=hp["M_kv"],
        hidden_dim=hp["d_e"],
        intermediate_dim=hp["d_f"],
        tie_word_embeddings=bool(hp["tied"]),
    )
