"""KerasHub's EdRecBackbone, built from constructor arguments without allocating weights."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone


def backbone(hp: dict[str, int]):
    return stateless_backbone(
        keras_hub.models.EdRecBackbone,
        vocab_size=hp["v"],
        num_layers_enc=hp["L_enc"],
        num_layers_dec=hp["L_dec"],
        hidden_dim=hp["d_e"],
        intermediate_dim=hp["d_f"],
        num_heads=hp["M"],
    )
