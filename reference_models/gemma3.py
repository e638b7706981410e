"""Gemma 3: KerasHub's Gemma3Backbone, text only (no vision encoder), with the sliding-window
layers on as in the checkpoints (five local layers to one global)."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone


def _kwargs(hp: dict[str, int]) -> dict:
    return dict(
        vocabulary_size=hp["v"],
        image_size=896,  # unused without a vision encoder
        num_layers=hp["L"],
        num_query_heads=hp["M"],
        num_key_value_heads=hp["M_kv"],
        hidden_dim=hp["d_e"],
        intermediate_dim=hp["d_f"],
        head_dim=hp["d_k"],
        use_query_key_norm=bool(hp["qk_norm"]),
        use_post_ffw_norm=bool(hp["post_ffw_norm"]),
        use_post_attention_norm=bool(hp["post_attn_norm"]),
        use_sliding_window_attention=True,
        sliding_window_size=512,
        vision_encoder=None,
    )


def backbone(hp: dict[str, int]):
    return stateless_backbone(keras_hub.models.Gemma3Backbone, **_kwargs(hp))


def embedding_backbone(hp: dict[str, int]):
    return stateless_backbone(
        keras_hub.models.Gemma3Backbone,
        **_kwargs(hp),
        use_bidirectional_attention=True,
        is_embedding_model=True,
        pooling_intermediate_dim=hp["d_pool"],
        embedding_dim=hp["d_sent"],
    )
