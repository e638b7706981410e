"""KerasHub's XLMRobertaBackbone and XLMRobertaMaskedLM, built from the family's table without
allocating weights."""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table, stateless_task


def backbone(hp: dict[str, int]):
    return from_table("xlm_roberta", keras_hub.models.XLMRobertaBackbone, hp)


def masked_lm(hp: dict[str, int]):
    # MaskedLMHead ties its output projection to the token embedding: only its bias is new.
    return stateless_task(keras_hub.models.XLMRobertaMaskedLM, backbone=backbone(hp), preprocessor=None)
