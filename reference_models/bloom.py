"""BLOOM: KerasHub's BloomBackbone."""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table


def backbone(hp: dict[str, int]):
    return from_table("bloom", keras_hub.models.BloomBackbone, hp)
