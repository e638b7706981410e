"""Gemma / Gemma 2: KerasHub's GemmaBackbone.

KerasHub's ``intermediate_dim`` is the gate and up widths together (2·d_f). Gemma 2's options
that hold no weights (soft caps, sliding windows, query scaling) are set as its converter does,
so the model built is Gemma 2's; they do not change the count.
"""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone


def backbone(hp: dict[str, int]):
    gemma2 = bool(hp["post_norm"])
    return stateless_backbone(
        keras_hub.models.GemmaBackbone,
        vocabulary_size=hp["v"],
        num_layers=hp["L"],
        num_query_heads=hp["M"],
        num_key_value_heads=hp["M_kv"],
        hidden_dim=hp["d_e"],
        intermediate_dim=2 * hp["d_f"],
        head_dim=hp["d_k"],
        use_post_ffw_norm=bool(hp["post_ffw_norm"]),
        use_post_attention_norm=bool(hp["post_attn_norm"]),
        final_logit_soft_cap=30.0 if gemma2 else None,
        attention_logit_soft_cap=50.0 if gemma2 else None,
        use_sliding_window_attention=gemma2,
    )
