"""Qwen 3.5 MoE: KerasHub's Qwen3_5MoeBackbone (text only), built from constructor arguments."""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table


def backbone(hp: dict[str, int]):
    return from_table("qwen3_5_moe", keras_hub.models.Qwen3_5MoeBackbone, hp)
