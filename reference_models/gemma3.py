"""Gemma 3: KerasHub's Gemma3Backbone, text only (no vision encoder), with the sliding-window
layers on as in the checkpoints (five local layers to one global)."""

from __future__ import annotations

import keras_hub

from paramcount.registry import get
from reference_models._build import from_table, stateless_backbone


def backbone(hp: dict[str, int]):
    return from_table("gemma3", keras_hub.models.Gemma3Backbone, hp)


def embedding_backbone(hp: dict[str, int]):
    return stateless_backbone(
        keras_hub.models.Gemma3Backbone,
        # the text backbone's arguments from gemma3's table, then the pooling head's
        **get("gemma3").mapping.keras_kwargs(hp),
        use_bidirectional_attention=True,
        is_embedding_model=True,
        pooling_intermediate_dim=hp["d_pool"],
        embedding_dim=hp["d_sent"],
    )
