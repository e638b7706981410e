"""Gemma 3: KerasHub's Gemma3Backbone, text only (no vision encoder), with the sliding-window
layers on as in the checkpoints (five local layers to one global)."""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table


def backbone(hp: dict[str, int]):
    return from_table("gemma3", keras_hub.models.Gemma3Backbone, hp)


def embedding_backbone(hp: dict[str, int]):
    return from_table("gemma3_embedding", keras_hub.models.Gemma3Backbone, hp)
