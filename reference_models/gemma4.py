"""Gemma 4's dense text decoder: KerasHub's Gemma4Backbone without vision or audio encoders,
built from constructor arguments (nothing downloaded)."""

from __future__ import annotations

import contextlib

import keras_hub
from keras_hub.src.models.gemma4 import gemma4_backbone

from reference_models._build import stateless_backbone


@contextlib.contextmanager
def _global_blocks_named_apart():
    """KerasHub names every block ``decoder_block_i``, so a global block's attention weights sit
    at the same paths as a sliding-window block's, though they differ in shape. While this is
    active, global blocks are named ``decoder_block_i_global``: only the names change (the
    backbone never looks a block up by name), and the formula can tell the kinds apart."""
    original = gemma4_backbone.Gemma4TextDecoderBlock

    class Named(original):
        def __init__(self, *args, name=None, **kwargs):
            if kwargs.get("is_global_attention") and name:
                name = f"{name}_global"
            super().__init__(*args, name=name, **kwargs)

    gemma4_backbone.Gemma4TextDecoderBlock = Named
    try:
        yield
    finally:
        gemma4_backbone.Gemma4TextDecoderBlock = original


def backbone(hp: dict[str, int]):
    # Which layers are global does not change the count: the first L_global here.
    kinds = (["full_attention"] * hp["L_global"]
             + ["sliding_attention"] * (hp["L"] - hp["L_global"]))
    with _global_blocks_named_apart():
        return stateless_backbone(
            keras_hub.models.Gemma4Backbone,
            vocabulary_size=hp["v"],
            image_size=896,  # only read by a vision encoder; there is none
            num_layers=hp["L"],
            num_query_heads=hp["M"],
            num_key_value_heads=hp["M_kv"],
            hidden_dim=hp["d_e"],
            intermediate_dim=hp["d_f"],
            head_dim=hp["d_k"],
            layer_types=kinds,
            global_head_dim=hp["d_kg"],
            num_global_key_value_heads=hp["M_kvg"] if hp["keqv"] else None,
        )
