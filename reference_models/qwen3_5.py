"""Qwen 3.5: KerasHub's Qwen3_5Backbone (text only), built from constructor arguments."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone as build


def hybrid_kwargs(hp: dict[str, int]) -> dict:
    # Which blocks use full attention does not change the count: the first L_full here.
    kinds = ["full_attention"] * hp["L_full"] + ["linear_attention"] * (hp["L"] - hp["L_full"])
    return dict(
        vocabulary_size=hp["v"],
        num_layers=hp["L"],
        num_query_heads=hp["M"],
        num_key_value_heads=hp["M_kv"],
        head_dim=hp["d_k"],
        hidden_dim=hp["d_e"],
        layer_types=kinds,
        tie_word_embeddings=bool(hp["tied"]),
        linear_num_key_heads=hp["H_lk"],
        linear_num_value_heads=hp["H_lv"],
        linear_key_head_dim=hp["d_lk"],
        linear_value_head_dim=hp["d_lv"],
        linear_conv_kernel_dim=hp["K_conv"],
    )


def backbone(hp: dict[str, int]):
    return build(keras_hub.models.Qwen3_5Backbone, intermediate_dim=hp["d_f"],
                 **hybrid_kwargs(hp))
