"""Gemma 3n's text decoder: KerasHub's Gemma3nBackbone without vision or audio encoders, built
from constructor arguments (nothing downloaded)."""

from __future__ import annotations

import contextlib

import keras_hub
from keras_hub.src.models.gemma3n import gemma3n_text_model

from reference_models._build import from_table


@contextlib.contextmanager
def _kv_shared_blocks_named_apart():
    """KerasHub names every block ``decoder_block_i``, so a KV-shared block's (unused) key and
    value projections sit at the same paths as a computing block's. While this is active,
    KV-shared blocks are named ``decoder_block_i_kv_shared``: only the names change (the text
    model keeps its blocks in a list and never looks one up by name), and the formula can tell
    the kinds apart."""
    original = gemma3n_text_model.Gemma3nTextDecoderBlock

    class Named(original):
        def __init__(self, *args, name=None, **kwargs):
            # is_kv_shared_layer: the 20th positional argument (Gemma3nTextModel passes it so)
            shared = kwargs.get("is_kv_shared_layer", args[19] if len(args) > 19 else False)
            if shared and name:
                name = f"{name}_kv_shared"
            super().__init__(*args, name=name, **kwargs)

    gemma3n_text_model.Gemma3nTextDecoderBlock = Named
    try:
        yield
    finally:
        gemma3n_text_model.Gemma3nTextDecoderBlock = original


def backbone(hp: dict[str, int]):
    # the arguments from gemma3n's table (with the released models' weightless settings: every
    # fifth layer global, a 512-token window)
    with _kv_shared_blocks_named_apart():
        return from_table("gemma3n", keras_hub.models.Gemma3nBackbone, hp)
