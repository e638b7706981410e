"""Qwen 3 MoE: KerasHub's Qwen3MoeBackbone, built from constructor arguments (nothing downloaded)."""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table


def backbone(hp: dict[str, int]):
    # The table gives every argument, mlp_only_layers too (the first L − L_moe blocks dense).
    return from_table("qwen3_moe", keras_hub.models.Qwen3MoeBackbone, hp)
