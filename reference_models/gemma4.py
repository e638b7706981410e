"""Gemma 4's dense text decoder: KerasHub's Gemma4Backbone without vision or audio encoders,
built from constructor arguments (nothing downloaded)."""

from __future__ import annotations

import contextlib

import keras_hub
from keras_hub.src.models.gemma4 import gemma4_backbone

from reference_models._build import from_table


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
    # layer_types from the table: the L_local sliding-window blocks, then the L_global global
    # ones (which layers are global does not change the count)
    with _global_blocks_named_apart():
        return from_table("gemma4", keras_hub.models.Gemma4Backbone, hp)
