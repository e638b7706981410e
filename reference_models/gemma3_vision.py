"""Gemma 3 with its vision encoder: KerasHub's Gemma3Backbone given a Gemma3VisionEncoder, as its
Hugging Face converter builds the multimodal checkpoints. Both constructors' arguments come from
gemma3_vision's table: the encoder's are the nested ``vision_encoder.config`` ones, as KerasHub
serializes the encoder inside the backbone's config."""

from __future__ import annotations

import keras_hub

from paramcount.model.registry import get
from reference_models._build import stateless


def backbone(hp: dict[str, int]):
    kwargs = get("gemma3_vision").mapping.keras_kwargs(hp)
    encoder = kwargs.pop("vision_encoder")
    with stateless():
        return keras_hub.models.Gemma3Backbone(
            **kwargs, vision_encoder=keras_hub.models.Gemma3VisionEncoder(**encoder["config"]))
