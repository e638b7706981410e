"""Qwen 3.5: KerasHub's Qwen3_5Backbone (text only), built from constructor arguments."""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table


def backbone(hp: dict[str, int]):
    # layer_types from the table: the first L_full blocks full attention (which ones does not
    # change the count)
    return from_table("qwen3_5", keras_hub.models.Qwen3_5Backbone, hp)
