"""Gemma 3 as a vision-language model (Gemma Team 2025): keras_hub.models.Gemma3Backbone with a
Gemma3VisionEncoder, as KerasHub's multimodal presets (gemma3_4b/12b/27b, MedGemma,
TranslateGemma) build it.

The text side is ``gemma3``'s backbone, term for term. In front of it, a SigLIP image encoder
(Zhai et al. 2023; 400M "So400m" shape in every released size) turns each H × H image into
(H/P)² patch vectors of d_vis; average pooling (no weights) merges 4 × 4 of them into one image
token; an RMS norm (a plain d_vis scale) and a bias-free projection d_vis → d_e make them token
embeddings that are interleaved with the text's (no weights either).
"""

from __future__ import annotations

import paramcount.architectures.gemma3 as _text
from paramcount.components import dense
from paramcount.components.modern import rms_norm
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
from paramcount.registry import Architecture, get, register
from paramcount.symbols import L, M, d_e, d_f, d_k, v

_GEMMA3 = get("gemma3")  # the text backbone's hyperparameters, options and constraints

register(Architecture(
    id="gemma3_vision",
    title="Gemma 3 vision-language backbone (Gemma3Backbone with Gemma3VisionEncoder): SigLIP "
          "encoder, pooled and projected image tokens",
    source="Gemma Team 2025, 'Gemma 3 Technical Report', section 2.1 (vision encoder); Zhai et al. "
           "2023 (SigLIP); keras_hub/src/models/gemma3/gemma3_{backbone,vision_encoder}.py",
    formula=group(
        "gemma3_vision",
        *_text._BACKBONE,
        zero("head", "tied: the output projection is the token embedding, transposed", kind="head"),
        vision_encoder(),
        group(
            "vision_projector",
            zero("average_pooling", "4 × 4 patches averaged into one image token: no weights"),
            rms_norm("norm", d_vis, match="vision_soft_embedding_norm"),
            dense("projection", d_vis, d_e, bias=0, match="vision_input_projection"),
            zero("interleave", "image tokens placed among the text tokens: no weights"),
            match="vision_output_encoder",
            kind="projection",
        ),
    ),
    required=(v, d_e, M, d_k, d_f, L, H, P, d_vis, M_vis, d_fvis, L_vis),
    optional=_GEMMA3.optional,
    constraints=(*_GEMMA3.constraints, *VISION_CONSTRAINTS),
    reference="reference_models.gemma3_vision:backbone",
    counting="trainable weights of the whole vision-language backbone: the text backbone "
             "(token embedding, also the tied head; L blocks; final norm), the image encoder "
             "and its projector",
    presets="gemma3_vision",
    keras_hub_metadata=True,
    examples={
        "tiny": dict(v=100, d_e=32, M=4, M_kv=1, d_k=8, d_f=48, L=2, H=32, P=8, d_vis=16,
                     M_vis=2, d_fvis=24, L_vis=2),
        "odd_sizes": dict(v=997, d_e=45, M=5, M_kv=5, d_k=7, d_f=13, L=3, H=21, P=7, d_vis=15,
                          M_vis=5, d_fvis=11, L_vis=3, qk_norm=0, post_norm=0),
    },
    family="keras_hub",
))
