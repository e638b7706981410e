"""Phi-3: KerasHub's Phi3Backbone. The 128k models' "su" rotary scaling holds no weights, so the
default rotary embedding stands in for it."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone


def backbone(hp: dict[str, int]):
    return stateless_backbone(
        keras_hub.models.Phi3Backbone,
        vocabulary_size=hp["v"],
        num_layers=hp["L"],
        hidden_dim=hp["d_e"],
        intermediate_dim=hp["d_f"],
        num_query_heads=hp["M"],
        num_key_value_heads=hp["M_kv"],
    )
