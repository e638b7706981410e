"""Llama 3: KerasHub's Llama3Backbone (LlamaBackbone's constructor), from constructor arguments."""

from __future__ import annotations

import keras_hub

from reference_models import llama


def backbone(hp: dict[str, int]):
    return llama.backbone(hp, cls=keras_hub.models.Llama3Backbone, arch="llama3")
