"""KerasHub's ESMBackbone, built from constructor arguments without allocating weights."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone


def backbone(hp: dict[str, int]):
    return stateless_backbone(
        keras_hub.models.ESMBackbone,
        vocabulary_size=hp["v"],
        num_layers=hp["L"],
        num_heads=hp["M"],
        hidden_dim=hp["d_e"],
        intermediate_dim=hp["d_f"],
        use_bias=bool(hp["zeta"]),
        position_embedding_type="absolute" if hp["abs_pos"] else "rotary",
        use_pre_layer_norm=bool(hp["emb_norm"]),
        max_sequence_length=hp["n"],
    )
