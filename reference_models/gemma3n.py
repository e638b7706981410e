"""Gemma 3n's text decoder: KerasHub's Gemma3nBackbone without vision or audio encoders, built
from constructor arguments (nothing downloaded)."""

from __future__ import annotations

import contextlib

import keras_hub
from keras_hub.src.models.gemma3n import gemma3n_text_model

from reference_models._build import stateless_backbone


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
    n = hp["L"]
    # Which layers are global changes no weight; Gemma 3n's own pattern: every 5th layer global.
    kinds = ["full_attention" if (i + 1) % 5 == 0 else "sliding_attention" for i in range(n)]
    with _kv_shared_blocks_named_apart():
        return stateless_backbone(
            keras_hub.models.Gemma3nBackbone,
            text_vocab_size=hp["v"],
            text_hidden_size=hp["d_e"],
            num_hidden_layers=n,
            pad_token_id=0,
            num_attention_heads=hp["M"],
            num_key_value_heads=hp["M_kv"],
            head_dim=hp["d_k"],
            intermediate_size=[hp["d_f"]] * n,
            hidden_activation="gelu_approximate",
            layer_types=kinds,
            sliding_window=512,
            rope_theta=1_000_000.0,
            max_position_embeddings=32_768,
            vocab_size_per_layer_input=hp["v_p"],
            hidden_size_per_layer_input=hp["d_p"],
            altup_num_inputs=hp["A"],
            laurel_rank=hp["r_l"],
            attention_bias=bool(hp["b_att"]),
            altup_correct_scale=bool(hp["altup_cs"]),
            num_kv_shared_layers=hp["L_kvs"],
        )
