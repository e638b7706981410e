"""BERT: KerasHub's BertBackbone and BertMaskedLM."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone, stateless_task


def backbone(hp: dict[str, int]):
    return stateless_backbone(
        keras_hub.models.BertBackbone,
        vocabulary_size=hp["v"],
        num_layers=hp["L"],
        num_heads=hp["M"],
        hidden_dim=hp["d_e"],
        intermediate_dim=hp["d_f"],
        max_sequence_length=hp["n"],
        num_segments=hp["s"],
    )


def masked_lm(hp: dict[str, int]):
    # MaskedLMHead ties its output projection to the token embedding: only its bias is new.
    return stateless_task(keras_hub.models.BertMaskedLM, backbone=backbone(hp),
                          preprocessor=None)
