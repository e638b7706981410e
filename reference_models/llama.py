"""Llama 2: KerasHub's LlamaBackbone, built from constructor arguments (nothing downloaded)."""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table


def backbone(hp: dict[str, int], cls=None, arch: str = "llama"):
    return from_table(arch, cls or keras_hub.models.LlamaBackbone, hp)
