"""Qwen1.5-MoE: KerasHub's QwenMoeBackbone, built from constructor arguments (nothing downloaded)."""

from __future__ import annotations

import contextlib
import re

import keras_hub
from keras_hub.src.models.qwen_moe import qwen_moe_backbone

from reference_models._build import stateless_backbone as build


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
    # Which blocks are dense does not change the count: the first L_dense.
    dense = list(range(hp["L"] - hp["L_moe"]))
    kwargs = dict(
        vocabulary_size=hp["v"],
        num_layers=hp["L"],
        num_query_heads=hp["M"],
        num_key_value_heads=hp["M_kv"],
        hidden_dim=hp["d_e"],
        intermediate_dim=hp["d_f"],
        moe_intermediate_dim=hp["d_fe"],
        shared_expert_intermediate_dim=hp["d_fs"],
        num_experts=hp["E"],
        top_k=hp["k"],
        tie_word_embeddings=bool(hp["tied"]),
        mlp_only_layers=dense,
    )
    if 0 < len(dense) < hp["L"]:
        with _blocks_know_their_index():
            return build(keras_hub.models.QwenMoeBackbone, **kwargs)
    return build(keras_hub.models.QwenMoeBackbone, **kwargs)  # KerasHub's backbone as it is
