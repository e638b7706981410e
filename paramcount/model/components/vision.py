"""Vision encoders of KerasHub's vision-language models: the SigLIP-style ViT that Gemma 3 and
PaliGemma put in front of their Gemma decoders.

Both KerasHub encoders (``Gemma3VisionEncoderBlock``, ``PaliGemmaVitEncoder``) build the same
weights under the same names: a square H × H RGB image cut into (H/P)² patches of P × P pixels,
each embedded by a strided convolution with bias (one P·P·3 → d_vis linear map per patch), a
learned position per patch (no class token), L_vis pre-LN blocks (layer norm, multi-head
attention with biases on all four projections, layer norm, GELU MLP with biases) and a final
layer norm. What follows the encoder differs by family (Gemma 3: average pooling, an RMS norm and
a bias-free projection to d_e; PaliGemma: a dense layer with bias), so the families add it.
"""

from __future__ import annotations

import dataclasses

from paramcount.core.formula import Term, group, leaf
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Requires
from paramcount.core.symbols import H, L_vis, M_vis, P, d_fvis, d_vis
from paramcount.model.components.audio import on_positions, over_keys
from paramcount.model.components.basic import attention, feed_forward, layer_norm
from paramcount.model.mapping import Field

__all__ = ["PATCHES", "RGB_ONLY", "VISION_CONSTRAINTS", "H", "L_vis", "M_vis", "P", "d_fvis", "d_vis",
           "vision_encoder", "vision_fields"]

# H and P are ViT's symbols (paramcount.core.symbols): these encoders
# take square images only, so H is the side.

#: The positions the encoder runs on: one per patch of the one image a sequence holds, whatever T.
PATCHES = (H / P) ** 2

#: Checked wherever :func:`vision_encoder` is used: heads split the width, patches tile the image.
VISION_CONSTRAINTS = (Divisible(d_vis, M_vis), Divisible(H, P))

_CHANNELS = 3  # both encoders take RGB input only (KerasHub fixes num_channels=3)
#: A transformers config's SigLIP encoder of another number of channels is refused: its patch
#: convolution is num_channels·P·P·d_vis wide (issue 32: declared free, it was counted as RGB).
RGB_ONLY = Requires("vision_config.num_channels", (_CHANNELS,),
                    why="the image encoder here takes RGB images (3 channels), as KerasHub's does")


def vision_fields(keras_prefix: str) -> tuple[Field, ...]:
    """The encoder's table rows, in this order (P, M_vis, d_vis, L_vis, d_fvis): both KerasHub
    encoders' arguments, named alike after ``keras_prefix`` (PaliGemma's ``vit_``), beside the
    keys of transformers' SigLIP ``vision_config``."""
    keys = (("P", "patch_size", "patch_size"), ("M_vis", "num_heads", "num_attention_heads"),
            ("d_vis", "hidden_dim", "hidden_size"), ("L_vis", "num_layers", "num_hidden_layers"),
            ("d_fvis", "intermediate_dim", "intermediate_size"))
    return tuple(Field(symbol, keras=keras_prefix + keras, hf=f"vision_config.{hf}")
                 for symbol, keras, hf in keys)


def vision_encoder(name: str = "vision_encoder", *, match: str = "image_encoder",
                   costs: bool = False) -> Term:
    """The SigLIP-style image encoder, from pixels to (H/P)² vectors of d_vis. ``costs``: with
    what it costs said on its leaves (:mod:`paramcount.model.cost`): one image per sequence,
    its patch convolution and blocks on the :data:`PATCHES` positions whatever T, attending
    both ways (the products of their queries and keys measured beside the attention, as
    ``scores``), caching nothing."""
    encoder = _encoder(name, match)
    if not costs:
        return encoder
    embeddings, blocks, final = encoder.children
    patch, position = embeddings.children
    patch = patch.with_cost(macs=P * P * _CHANNELS * d_vis, tokens=PATCHES)
    kids = tuple(over_keys(c, PATCHES, PATCHES, cached=False) if c.name == "attention" else c
                 for c in blocks.children)
    return dataclasses.replace(encoder, children=(
        dataclasses.replace(embeddings, children=(patch, position)),
        on_positions(dataclasses.replace(blocks, children=kids), PATCHES), final))


def _encoder(name: str, match: str) -> Term:
    head = d_vis / M_vis
    return group(
        name,
        group(
            "embeddings",
            leaf("patch", P * P * _CHANNELS * d_vis + d_vis, match="embedding_conv", kind="embedding",
                 note="Conv2D, kernel P × P × 3 → d_vis, stride P, with bias: one linear map per "
                      "patch"),
            leaf("position", (H / P) ** 2 * d_vis, match="position_embedding", kind="position",
                 note="learned: one per patch, (H/P)², no class token"),
            match="encoder_embeddings",
        ),
        group(
            "blocks",
            layer_norm("norm_1", d_vis, match="layer_norm_1"),
            attention(match="multi_head_attention", width=d_vis, heads=M_vis, key_dim=head,
                      value_dim=head, bias=1,
                      names=("query_proj", "key_proj", "value_proj", "out_proj")),
            layer_norm("norm_2", d_vis, match="layer_norm_2"),
            feed_forward(width=d_vis, inner=d_fvis, names=("mlp_dense_1", "mlp_dense_2")),
            times=L_vis,
            match=r"encoder_block_\d+",
        ),
        layer_norm("final_norm", d_vis, match="encoder_layer_norm"),
        match=match,
    )
