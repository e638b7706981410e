"""OPT: KerasHub's OPTBackbone."""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table


def backbone(hp: dict[str, int]):
    return from_table("opt", keras_hub.models.OPTBackbone, hp)
