"""KerasHub's XLNetBackbone, built from the family's table without allocating weights."""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table


def backbone(hp: dict[str, int]):
    return from_table("xlnet", keras_hub.models.XLNetBackbone, hp)
