"""KerasHub's AlbertBackbone and AlbertMaskedLM, built from the family's table without
allocating weights."""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table, stateless_task


def backbone(hp: dict[str, int]):
    return from_table("albert", keras_hub.models.AlbertBackbone, hp)


def masked_lm(hp: dict[str, int]):
    # MaskedLMHead ties its output projection to the (d_emb-wide) token table.
    return stateless_task(keras_hub.models.AlbertMaskedLM, backbone=backbone(hp),
                          preprocessor=None)
