"""Qwen 3: KerasHub's Qwen3Backbone, built from constructor arguments (nothing downloaded)."""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table


def backbone(hp: dict[str, int]):
    return from_table("qwen3", keras_hub.models.Qwen3Backbone, hp)
