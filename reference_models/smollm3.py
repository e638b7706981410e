"""SmolLM3: KerasHub's SmolLM3Backbone, built from constructor arguments (nothing downloaded)."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone as build


def backbone(hp: dict[str, int]):
    layers = hp["L"]
    return build(
        keras_hub.models.SmolLM3Backbone,
        vocabulary_size=hp["v"],
        hidden_dim=hp["d_e"],
        intermediate_dim=hp["d_f"],
        num_layers=layers,
        num_attention_heads=hp["M"],
        num_key_value_heads=hp["M_kv"],
        attention_bias=bool(hp["b_qkv"]),
        attention_dropout=0.0,
        # SmolLM3's pattern: RoPE off in every fourth layer (NoPE); no parameter depends on it.
        rope_layer_enabled_list=[int((i + 1) % 4 != 0) for i in range(layers)],
        layer_types=["full_attention"] * layers,
        mlp_bias=bool(hp["b_ffn"]),
        layer_norm_epsilon=1e-6,
        max_position_embeddings=65536,
        rope_theta=5_000_000.0,
        partial_rotary_factor=1.0,
    )
