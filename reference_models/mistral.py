"""Mistral: KerasHub's MistralBackbone, built from constructor arguments (nothing downloaded)."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone as build


def backbone(hp: dict[str, int]):
    return build(
        keras_hub.models.MistralBackbone,
        vocabulary_size=hp["v"],
        num_layers=hp["L"],
        num_query_heads=hp["M"],
        num_key_value_heads=hp["M_kv"],
        hidden_dim=hp["d_e"],
        intermediate_dim=hp["d_f"],
        head_dim=hp["d_k"],
    )
