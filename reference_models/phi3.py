"""Phi-3: KerasHub's Phi3Backbone, built from constructor arguments (nothing downloaded). The
128k models' "su" rotary scaling holds no weights, so the default rotary embedding stands in."""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table


def backbone(hp: dict[str, int]):
    return from_table("phi3", keras_hub.models.Phi3Backbone, hp)
