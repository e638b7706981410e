"""Qwen1.5-MoE: KerasHub's QwenMoeBackbone, built from constructor arguments (nothing downloaded)."""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table


def backbone(hp: dict[str, int]):
    # The dense feed-forward width is unused while every block is sparse (the default here and
    # in every published model); the published config sets it to the shared width.
    return from_table("qwen_moe", keras_hub.models.QwenMoeBackbone, hp,
                      intermediate_dim=hp["d_fs"])
