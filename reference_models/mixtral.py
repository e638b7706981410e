"""Mixtral: KerasHub's MixtralBackbone, built from constructor arguments (nothing downloaded)."""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table


def backbone(hp: dict[str, int]):
    return from_table("mixtral", keras_hub.models.MixtralBackbone, hp)
