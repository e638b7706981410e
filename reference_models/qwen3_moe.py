"""Qwen 3 MoE: KerasHub's Qwen3MoeBackbone, built from constructor arguments (nothing downloaded)."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone
from paramcount.registry import get


def backbone(hp: dict[str, int]):
    # The table's arguments, plus which blocks are dense (a list the table does not carry; which
    # ones does not change the count): the first L − L_moe.
    return stateless_backbone(keras_hub.models.Qwen3MoeBackbone,
                              **get("qwen3_moe").mapping.keras_kwargs(hp),
                              mlp_only_layers=list(range(hp["L"] - hp["L_moe"])))
