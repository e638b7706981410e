"""SmolLM3: KerasHub's SmolLM3Backbone, with SmolLM3's layout of rotary layers (every fourth
layer without RoPE, as its config's ``no_rope_layers``); neither that nor the sequence length
or rotary base changes a weight's shape."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone


def backbone(hp: dict[str, int]):
    layers = hp["L"]
    return stateless_backbone(
        keras_hub.models.SmolLM3Backbone,
        vocabulary_size=hp["v"],
        hidden_dim=hp["d_e"],
        intermediate_dim=hp["d_f"],
        num_layers=layers,
        num_attention_heads=hp["M"],
        num_key_value_heads=hp["M_kv"],
        attention_bias=bool(hp["zeta"]),
        attention_dropout=0.0,
        rope_layer_enabled_list=[(i + 1) % 4 != 0 for i in range(layers)],
        layer_types=["full_attention"] * layers,
        mlp_bias=bool(hp["ffn_bias"]),
        layer_norm_epsilon=1e-6,
        max_position_embeddings=65536,
        rope_theta=5_000_000.0,
        partial_rotary_factor=1.0,
    )
