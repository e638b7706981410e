"""SmolLM3: KerasHub's SmolLM3Backbone, built from constructor arguments (nothing downloaded).
The rotary and per-layer arguments KerasHub requires come from the table's ``keras_constants``."""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table


def backbone(hp: dict[str, int]):
    return from_table("smollm3", keras_hub.models.SmolLM3Backbone, hp)
