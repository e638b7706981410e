"""PaliGemma / PaliGemma 2: KerasHub's PaliGemmaBackbone, the ViT unpooled (as every preset).

KerasHub's ``intermediate_dim`` is the gate and up widths together (2·d_f), as in GemmaBackbone.
PaliGemma 2's weight-free Gemma 2 options (soft caps, sliding windows) are set as in Gemma 2.
"""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone


def backbone(hp: dict[str, int]):
    gemma2 = bool(hp["post_norm"])
    return stateless_backbone(
        keras_hub.models.PaliGemmaBackbone,
        vocabulary_size=hp["v"],
        image_size=hp["H"],
        num_layers=hp["L"],
        num_query_heads=hp["M"],
        num_key_value_heads=hp["M_kv"],
        hidden_dim=hp["d_e"],
        intermediate_dim=2 * hp["d_f"],
        head_dim=hp["d_k"],
        vit_patch_size=hp["P"],
        vit_num_heads=hp["M_vis"],
        vit_hidden_dim=hp["d_vis"],
        vit_num_layers=hp["L_vis"],
        vit_intermediate_dim=hp["d_fvis"],
        vit_pooling=None,
        use_post_ffw_norm=gemma2,
        use_post_attention_norm=gemma2,
        final_logit_soft_cap=30.0 if gemma2 else None,
        attention_logit_soft_cap=50.0 if gemma2 else None,
        use_sliding_window_attention=gemma2,
    )
