"""Qwen1.5-MoE: KerasHub's QwenMoeBackbone, built from constructor arguments (nothing downloaded)."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone as build


def backbone(hp: dict[str, int]):
    return build(
        keras_hub.models.QwenMoeBackbone,
        vocabulary_size=hp["v"],
        num_layers=hp["L"],
        num_query_heads=hp["M"],
        num_key_value_heads=hp["M_kv"],
        hidden_dim=hp["d_e"],
        # The dense feed-forward width: unused while every block is sparse (the default here
        # and in every published model); the published config sets it to the shared width.
        intermediate_dim=hp["d_fs"],
        moe_intermediate_dim=hp["d_fe"],
        shared_expert_intermediate_dim=hp["d_fs"],
        num_experts=hp["E"],
        top_k=hp["k"],
        tie_word_embeddings=bool(hp["tied"]),
    )
