"""Qwen1.5-MoE: KerasHub's QwenMoeBackbone, built from constructor arguments (nothing downloaded)."""

from __future__ import annotations

import contextlib
import re

import keras_hub
from keras_hub.src.models.qwen_moe import qwen_moe_backbone

from reference_models._build import from_table


@contextlib.contextmanager
def _blocks_know_their_index():
    """QwenMoeBackbone never passes ``layer_index`` to its blocks, so ``mlp_only_layers`` and
    ``decoder_sparse_step`` act on index 0 in every block. While this is active, each block gets
    the index its name (``transformer_layer_i``) gives, as the published model's layers do; the
    build is unchanged whenever every block is sparse or every block dense."""
    original = qwen_moe_backbone.QwenMoeTransformerDecoder

    class Indexed(original):
        def __init__(self, *args, name=None, **kwargs):
            m = re.fullmatch(r"transformer_layer_(\d+)", name or "")
            if m is not None:
                kwargs["layer_index"] = int(m.group(1))
            super().__init__(*args, name=name, **kwargs)

    qwen_moe_backbone.QwenMoeTransformerDecoder = Indexed
    try:
        yield
    finally:
        qwen_moe_backbone.QwenMoeTransformerDecoder = original


def backbone(hp: dict[str, int]):
    # The table gives every argument, mlp_only_layers too (the first L − L_moe blocks dense).
    dense = hp["L"] - hp["L_moe"]
    if 0 < dense < hp["L"]:
        with _blocks_know_their_index():
            return from_table("qwen_moe", keras_hub.models.QwenMoeBackbone, hp)
    return from_table("qwen_moe", keras_hub.models.QwenMoeBackbone, hp)  # KerasHub's as it is
