"""KerasHub's FNetBackbone, built from constructor arguments without allocating weights."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone


def backbone(hp: dict[str, int]):
    return stateless_backbone(
        keras_hub.models.FNetBackbone,
        vocabulary_size=hp["v"],
        num_layers=hp["L"],
        hidden_dim=hp["d_e"],
        intermediate_dim=hp["d_f"],
        max_sequence_length=hp["n"],
        num_segments=hp["s"],
    )
