"""PaliGemma and PaliGemma 2 (Beyer et al. 2024; Steiner et al. 2024) as KerasHub builds them:
keras_hub.models.PaliGemmaBackbone.

A SigLIP image encoder (the So400m shape in every released size) turns an H × H image into
(H/P)² patch vectors of d_vis; one dense layer with bias (KerasHub's ``image_classifier``, the
"linear projection" of the paper) maps each to a d_e-wide token, and the image tokens are put
before the text tokens (no weights) into a Gemma decoder: Gemma 2B for PaliGemma, Gemma 2
2B / 9B / 27B for PaliGemma 2 (``post_norm = 1``: norms after attention and feed-forward). The
decoder's blocks are GemmaDecoderBlock's (prefix-LM masking holds no weights), so the text side is
``gemma``'s formula, with d_f the width of each of the gate and up projections.

KerasHub's ViT can also pool the patches (``vit_pooling="map"``: a learned probe and attention),
but no preset uses it, and in KerasHub 0.32 it does not build (``MultiHeadAttentionPooling``
passes a DTypePolicy where ``add_weight`` wants a dtype: TypeError), so only the unpooled encoder
is formulated.
"""

from __future__ import annotations

from paramcount.components import dense, embedding
from paramcount.components.decoders import gemma_attention, post_norm, post_norms
from paramcount.components.modern import gated_feed_forward, rms_norm, rotary_positions
from paramcount.components.vision import (
    VISION_CONSTRAINTS,
    H,
    L_vis,
    M_vis,
    P,
    d_fvis,
    d_vis,
    vision_encoder,
)
from paramcount.formula import group, zero
from paramcount.hparams import Divisible
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, M_kv, d_e, d_f, d_k, v

_post_attention, _post_ffw = post_norms(post_norm)

register(Architecture(
    id="pali_gemma",
    title="PaliGemma / PaliGemma 2 backbone (keras_hub.models.PaliGemmaBackbone): SigLIP image "
          "encoder, linear projection, Gemma / Gemma 2 decoder",
    source="Beyer et al. 2024, 'PaliGemma: A versatile 3B VLM for transfer', section 3; Steiner "
           "et al. 2024, 'PaliGemma 2'; keras_hub/src/models/pali_gemma/"
           "pali_gemma_{backbone,vit,decoder_block}.py",
    formula=group(
        "pali_gemma",
        vision_encoder(),
        dense("image_projection", d_vis, d_e, match="image_classifier", kind="projection",
              note="the linear projection d_vis → d_e, with bias (KerasHub's image_classifier)"),
        group(
            "embeddings",
            embedding("token", v, match="token_embedding"),
            rotary_positions(),
        ),
        group(
            "blocks",
            rms_norm("norm_1", match="pre_attention_norm"),
            gemma_attention(),
            _post_attention,
            rms_norm("norm_2", match="pre_ffw_norm"),
            gated_feed_forward(names=("ffw_gating", "ffw_gating_2", "ffw_linear")),
            _post_ffw,
            times=L,
            match=r"decoder_block_\d+",
            note="image tokens attend to each other and to the prefix in full, text causally: "
                 "masks, not weights",
        ),
        rms_norm("final_norm", match="final_normalization"),
        zero("head", "tied: the output projection is the token embedding, transposed", kind="head"),
    ),
    required=(v, d_e, M, d_k, d_f, L, H, P, d_vis, M_vis, d_fvis, L_vis),
    optional={M_kv: M, post_norm: 0},
    constraints=(Divisible(M, M_kv), *VISION_CONSTRAINTS),
    reference="reference_models.pali_gemma:backbone",
    counting="trainable weights of the backbone: image encoder, its projection, token embedding "
             "(also the tied head), L decoder blocks, final norm",
    presets="pali_gemma",
    keras_hub_metadata=True,
    examples={
        "tiny": dict(v=100, d_e=32, M=4, M_kv=1, d_k=8, d_f=48, L=2, H=32, P=8, d_vis=16,
                     M_vis=2, d_fvis=24, L_vis=2),
        "tiny_gemma2": dict(v=100, d_e=32, M=4, M_kv=2, d_k=16, d_f=48, L=2, H=28, P=7, d_vis=12,
                            M_vis=3, d_fvis=20, L_vis=1, post_norm=1),
        "odd_sizes": dict(v=997, d_e=45, M=5, M_kv=5, d_k=7, d_f=13, L=3, H=21, P=7, d_vis=15,
                          M_vis=5, d_fvis=11, L_vis=3),
    },
    family="keras_hub",
))
