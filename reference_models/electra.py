"""KerasHub's ElectraBackbone, built from constructor arguments without allocating weights."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone


def backbone(hp: dict[str, int]):
    return stateless_backbone(
        keras_hub.models.ElectraBackbone,
        vocab_size=hp["v"],
        num_layers=hp["L"],
        num_heads=hp["M"],
        hidden_dim=hp["d_e"],
        embedding_dim=hp["d_emb"],
        intermediate_dim=hp["d_f"],
        max_sequence_length=hp["n"],
        num_segments=hp["s"],
    )
