"""Gemma 3 with its vision encoder: KerasHub's Gemma3Backbone given a Gemma3VisionEncoder, as its
Hugging Face converter builds the multimodal checkpoints (the text side as ``gemma3``'s)."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless
from reference_models.gemma3 import _kwargs


def _pool_size(hp: dict[str, int]) -> int:
    # The converter pools 4 × 4 patches into one image token (64² patches → 256 tokens at
    # 896/14). Pooling holds no weights; a grid that 4 does not tile is pooled 1 × 1 instead.
    side = hp["H"] // hp["P"]
    return 4 if side % 4 == 0 else 1


def backbone(hp: dict[str, int]):
    with stateless():
        encoder = keras_hub.models.Gemma3VisionEncoder(
            image_size=hp["H"],
            patch_size=hp["P"],
            num_heads=hp["M_vis"],
            hidden_dim=hp["d_vis"],
            num_layers=hp["L_vis"],
            intermediate_dim=hp["d_fvis"],
            output_dim=hp["d_e"],
            pool_size=_pool_size(hp),
        )
        return keras_hub.models.Gemma3Backbone(
            **{**_kwargs(hp), "image_size": hp["H"], "vision_encoder": encoder})
