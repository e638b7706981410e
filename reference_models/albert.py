"""KerasHub's AlbertBackbone, built from constructor arguments without allocating weights."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone, stateless_task


def backbone(hp: dict[str, int]):
    return stateless_backbone(
        keras_hub.models.AlbertBackbone,
        vocabulary_size=hp["v"],
        num_layers=hp["L"],
        num_heads=hp["M"],
        embedding_dim=hp["d_emb"],
        hidden_dim=hp["d_e"],
        intermediate_dim=hp["d_f"],
        num_groups=hp["L_g"],
        num_inner_repetitions=hp["L_r"],
        max_sequence_length=hp["n"],
        num_segments=hp["s"],
    )


def masked_lm(hp: dict[str, int]):
    # MaskedLMHead ties its output projection to the (d_emb-wide) token table.
    return stateless_task(keras_hub.models.AlbertMaskedLM, backbone=backbone(hp),
                          preprocessor=None)
