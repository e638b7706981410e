"""Qwen 3.5 MoE: KerasHub's Qwen3_5MoeBackbone (text only), built from constructor arguments."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone as build
from reference_models.qwen3_5 import hybrid_kwargs


def backbone(hp: dict[str, int]):
    return build(
        keras_hub.models.Qwen3_5MoeBackbone,
        moe_intermediate_dim=hp["d_fe"],
        shared_expert_intermediate_size=hp["d_fs"],
        num_experts=hp["E"],
        top_k=hp["k"],
        **hybrid_kwargs(hp),
    )
