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

import paramcount.families.gemma3 as _text
from paramcount.core.formula import group
from paramcount.core.formula import zero
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.restrictions import select
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import v
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._defaults import not_formulated
from paramcount.families._lineages import GEMMA3_TIED
from paramcount.families._lineages import IMAGE_SIZE_224
from paramcount.families._lineages import VISION_SPLIT
from paramcount.families.pali_gemma import ODD_VISION_LM
from paramcount.families.pali_gemma import TINY_VISION_LM
from paramcount.families.pali_gemma import TRANSFORMERS as PALI_GEMMA_TRANSFORMERS
from paramcount.model.components import dense
from paramcount.model.components.modern import rms_norm
from paramcount.model.components.vision import RGB_ONLY
from paramcount.model.components.vision import H
from paramcount.model.components.vision import L_vis
from paramcount.model.components.vision import M_vis
from paramcount.model.components.vision import P
from paramcount.model.components.vision import d_fvis
from paramcount.model.components.vision import d_vis
from paramcount.model.components.vision import vision_encoder
from paramcount.model.components.vision import vision_fields
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import get
from paramcount.model.registry import register

IDS = ("gemma3_vision",)  # the ids this folder registers


_GEMMA3 = get("gemma3")  # the text backbone's hyperparameters, options and constraints


def _pool_size(hp) -> int:
    # KerasHub's converter pools 4 × 4 patches into one image token (64² patches → 256 tokens at
    # 896/14). Pooling holds no weights; a grid that 4 does not tile is pooled 1 × 1 instead.
    return 4 if (hp["H"] // hp["P"]) % 4 == 0 else 1


_ENC = "vision_encoder.config."
_TEXT = [f for f in _text.MAPPING.fields]  # the text backbone's rows, with text_config keys

# symbol ↔ Gemma3Backbone argument (the encoder's under vision_encoder.config, as KerasHub
# serializes a Gemma3VisionEncoder) ↔ Gemma3Config key (text_config: Gemma3TextConfig,
# vision_config: SigLIP's). The published multimodal configs leave several text keys to
# Gemma3TextConfig's class defaults (vocab_size 262208, 8 heads, 4 key/value heads, head_dim
# 256): those are the defaults here.
_HF_DEFAULTS = {"v": 262208, "M": 8, "M_kv": 4, "d_k": 256}
MAPPING = family_table(
    "gemma3_vision", hf="Gemma3ForConditionalGeneration", keras="Gemma3Backbone", model_type="gemma3",
    fields=(
        *(Field(f.symbol, keras=f.keras, hf=f.hf and f"text_config.{f.hf}", flag=f.flag,
                keras_default=f.keras_default, hf_default=_HF_DEFAULTS.get(f.symbol))
          for f in _TEXT),
        IMAGE_SIZE_224,
        Field("H", keras=_ENC + "image_size"),
        *vision_fields(_ENC),
        Field("d_e", keras=_ENC + "output_dim"),
    ),
    restrictions=(
        GEMMA3_TIED,
        Sets("mm_tokens_per_image", 1,
            why="one image token per image keeps transformers' pooling kernel valid at any small grid (it sizes "
                "the pooling only: no weights)"),
        Sets("text_config.model_type", "gemma3_text", why="the text model inside is Gemma 3's text decoder"),
        Sets("text_config.attention_bias", False, why="KerasHub's Gemma 3 attention has no biases"),
        Sets("vision_config.model_type", "siglip_vision_model", why="the vision encoder is SigLIP's"),
        Sets("vision_config.vision_use_head", False,
            why="Gemma 3 uses SigLIP's patch tokens, without its pooling head"),
        *(r for r in select(_text.MAPPING.restrictions, Sets, "keras")
          if r.key not in ("image_size", "vision_encoder")),
        Sets("vision_encoder.class_name", "Gemma3VisionEncoder", binds="keras",
            why="the formula counts KerasHub's Gemma3VisionEncoder"),
        Sets(_ENC + "pool_size", _pool_size, binds="keras",
            why="KerasHub's converter pools 4 × 4 patches into one image token (1 × 1 where 4 does not tile the "
                "grid); pooling holds no weights"),
        Requires("tie_word_embeddings", (True,), why="Gemma 3's head is the token embedding"),
        RGB_ONLY,
        Requires("text_config.attention_bias", (False,),
                 why="KerasHub's Gemma 3 attention has no biases"),
        Requires("vision_config.vision_use_head", (False,),
                 why="Gemma 3's SigLIP encoder is unpooled (no MAP head)"),
        Requires("vision_encoder.class_name", ("Gemma3VisionEncoder",), absent_ok=False,
                 binds="keras",
                 why="gemma3_vision reads a Gemma3Backbone with a Gemma3VisionEncoder"),
        Requires("is_embedding_model", (False,), binds="keras",
                 why="an embedding Gemma3Backbone is gemma3_embedding, not mapped to a config "
                     "reader yet"),
    ),
    free=frozenset({
        *{f"text_config.{k}" for k in _text.MAPPING.free},
        *(k for k in _text.MAPPING.free),
        "boi_token_index", "eoi_token_index", "image_token_index", "mm_tokens_per_image",
        "text_config.tie_word_embeddings", "vision_config.vocab_size",
        "vision_config.layer_norm_eps", "vision_config.hidden_act",
        "vision_config.attention_dropout",
        _ENC + "pool_size",
        _ENC + "layer_norm_epsilon",
    }),
)

# Gemma3ForConditionalGeneration: PaliGemma's SigLIP names for the encoder (model.vision_tower),
# the projector model.multi_modal_projector (mm_soft_emb_norm, mm_input_projection_weight),
# Gemma3TextModel as model.language_model with gemma3's names, lm_head tied (listed once).
TRANSFORMERS = Transformers(
    restrictions=(
        *select(_text.TRANSFORMERS.restrictions, Holds, "transformers"),
        *select(_text.TRANSFORMERS.restrictions, Holds, "proof"),
        *Fixed.each(_text.TRANSFORMERS.always),
    ),
    weights={
        **{k: w for k, w in PALI_GEMMA_TRANSFORMERS.weights.items()
           if k.startswith("vision_encoder") and not k.endswith(".scores")},
        **{k: w for k, w in _text.TRANSFORMERS.weights.items()
           if k not in ("embeddings.token", "blocks", "final_norm")},
        "embeddings.token": "language_model/embed_tokens",
        "blocks": r"language_model/layers/\d+",
        "final_norm": "language_model/norm",
        "vision_projector": "multi_modal_projector",
        "vision_projector.norm": "mm_soft_emb_norm",
        "vision_projector.projection": "mm_input_projection_weight",
    },
)

register(keras_hub_backbone(
    "gemma3_vision",
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
    restrictions=(
        *select(_GEMMA3.restrictions, Holds, "all"),
        *VISION_SPLIT,
    ),
    reference="reference_models.gemma3_vision:backbone",
    mapping=MAPPING,
    transformers=TRANSFORMERS,
    examples={
        "tiny": TINY_VISION_LM,
        "odd_sizes": dict(ODD_VISION_LM, qk_norm=0, post_norm=0),
    },
))

# memory and compute: what the trees do not formulate yet (frameworks.unformulated)
_IMAGE_TOKENS = (
    "the image's tokens in the sequence are the config's mm_tokens_per_image (256 in the "
    "published configs; the builds here set 1), pooled from the patch grid by its square root, "
    "which must divide the grid: no cost symbol says them")
_FLOPS = (
    "two of the forward's products have no component to claim them without new zero-parameter "
    "leaves in the parameter tree, which re-key its parameter proofs: the projector's matmul "
    "with mm_input_projection_weight, 2·B·N·d_vis·d_e, measured at multi_modal_projector/scores "
    "(its module's one parameter is a matrix not named weight), where no leaf's pattern "
    "reaches; and the image encoder's scores, 2·B·(H/P)⁴·2·d_vis whatever T, which an "
    "attention's own scores (2·B·queries·T·attends) cannot say (PaliGemma's encoder has a "
    "zero-parameter scores leaf for them: vision_encoder(costs=True)); and " + _IMAGE_TOKENS)
_KV = (
    "the text layers keep min(T, w − 1) positions in five of six (measured exact at the example "
    "sets, T = 1 to 37, and the presets past 4096, with the encoder's attention not cached), but "
    "w is the text config's sliding_window, a cost symbol (cost_config) that "
    "frameworks.for_framework adds to the transformers view's optional symbols, re-keying the "
    "parameter proof against transformers; and " + _IMAGE_TOKENS + ", so T ≥ N is not said")
register(not_formulated("gemma3_vision", flops=_FLOPS, kv=_KV), replace=True)
