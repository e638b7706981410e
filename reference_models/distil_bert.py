"""KerasHub's DistilBertBackbone and DistilBertMaskedLM, built from the family's table without
allocating weights."""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table, stateless_task


def backbone(hp: dict[str, int]):
    return from_table("distil_bert", keras_hub.models.DistilBertBackbone, hp)


def masked_lm(hp: dict[str, int]):
    # MaskedLMHead ties its output projection to the token embedding: only its bias is new.
    return stateless_task(keras_hub.models.DistilBertMaskedLM, backbone=backbone(hp), preprocessor=None)
