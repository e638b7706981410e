"""Falcon: KerasHub's FalconBackbone."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone


def backbone(hp: dict[str, int]):
    return stateless_backbone(
        keras_hub.models.FalconBackbone,
        vocabulary_size=hp["v"],
        num_layers=hp["L"],
        num_attention_heads=hp["M"],
        hidden_dim=hp["d_e"],
        intermediate_dim=hp["d_f"],
    )

