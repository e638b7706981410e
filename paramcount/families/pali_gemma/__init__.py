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

from paramcount.core.formula import group
from paramcount.core.formula import zero
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import v
from paramcount.families._decoders import sliding
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import EVEN_HEAD_DIM_VALIDATED
from paramcount.families._lineages import GEMMA_VALIDATED
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HF_VOCAB
from paramcount.families._lineages import IMAGE_SIZE_224
from paramcount.families._lineages import POST_NORM_ALWAYS
from paramcount.families._lineages import VISION_SPLIT
from paramcount.families.gemma import gemma_decoder
from paramcount.model.components import dense
from paramcount.model.components.decoders import post_norm
from paramcount.model.components.decoders import post_norms
from paramcount.model.components.llama_like import HF_GEMMA2_NORMS
from paramcount.model.components.llama_like import hf_decoder_names
from paramcount.model.components.modern import rms_norm
from paramcount.model.components.vision import PATCHES
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
from paramcount.model.mapping import Require
from paramcount.model.registry import register

IDS = ("pali_gemma",)  # the ids this folder registers


_post_attention, _post_ffw = post_norms(post_norm)


def _gemma2(on, off):
    return lambda hp: on if hp["post_norm"] else off


# symbol ↔ PaliGemmaBackbone argument ↔ PaliGemmaConfig key (nested: text_config is Gemma's,
# vision_config SigLIP's). Where a sub-config key is absent, transformers takes its class
# default: Gemma's head_dim 256, SigLIP's image_size 224 (the published configs rely on both).
_FIELDS = (
    Field("v", keras="vocabulary_size", hf="text_config.vocab_size"),
    HF_VOCAB,
    Field("L", keras="num_layers", hf="text_config.num_hidden_layers"),
    Field("M", keras="num_query_heads", hf="text_config.num_attention_heads"),
    Field("M_kv", keras="num_key_value_heads", hf="text_config.num_key_value_heads"),
    Field("d_e", keras="hidden_dim", hf="text_config.hidden_size"),
    # the projector's output is the decoder's width; PaliGemmaConfig's default where absent
    # (2048, whatever the text width: another is refused, the formula's projector being d_e wide)
    Field("d_e", hf="projection_dim", hf_default=2048),
    Field("d_f", keras="intermediate_dim", hf="text_config.intermediate_size", keras_scale=2),
    Field("d_k", keras="head_dim", hf="text_config.head_dim", hf_default=256),
    IMAGE_SIZE_224,
    *vision_fields("vit_"),
    # one symbol for both KerasHub switches (they must agree): see the post_norm split
    Field("post_norm", keras="use_post_attention_norm", flag=True, keras_default=0),
    Field("post_norm", keras="use_post_ffw_norm", flag=True, keras_default=0),
)
_HF_CONSTANTS = {"tie_word_embeddings": True, "text_config.model_type": "gemma",
                 "text_config.attention_bias": False,
                 "vision_config.model_type": "siglip_vision_model",
                 "vision_config.vision_use_head": False}
_REQUIRES = (
    Require("tie_word_embeddings", (True,), "PaliGemma's head is the token embedding"),
    Require("text_config.attention_bias", (False,), "KerasHub's Gemma attention has no "
            "biases"),
    Require("vision_config.vision_use_head", (False,), "KerasHub's PaliGemma ViT is "
            "formulated unpooled (no MAP head)"),
    Require("vit_pooling", (None,), "KerasHub's PaliGemma ViT is formulated unpooled",
            framework="keras"),
)
_FREE = frozenset({
    # the language model is a GemmaModel (no head of its own); SigLIP has no vocabulary
    "text_config.tie_word_embeddings", "vision_config.vocab_size",
    "hidden_size", "image_token_index", "ignore_index", "text_config.num_image_tokens",
    "vision_config.num_image_tokens", "vision_config.projection_dim",
    "vision_config.projector_hidden_act", "text_config.hidden_act",
    "text_config.hidden_activation", "text_config.rms_norm_eps",
    "text_config.max_position_embeddings", "text_config.rope_theta",
    "text_config.rope_parameters", "text_config.attention_dropout",
    "text_config.use_bidirectional_attention", "text_config.is_encoder_decoder",
    "vision_config.layer_norm_eps", "vision_config.hidden_act",
    "vision_config.attention_dropout",
    "vit_classifier_activation", "vit_name", "query_head_dim_normalize",
    "final_logit_soft_cap", "attention_logit_soft_cap", "use_sliding_window_attention",
    "sliding_window_size", "layer_norm_epsilon", "dropout",
})
MAPPING = family_table(
    "pali_gemma", hf="PaliGemmaForConditionalGeneration", keras="PaliGemmaBackbone", model_type="paligemma",
    fields=_FIELDS,
    restrictions=(
        *Sets.each(_HF_CONSTANTS,
            why="PaliGemma as KerasHub builds it: a tied Gemma head without attention biases, SigLIP's vision "
                "model without its pooling head"),
        Sets("vit_pooling", None, binds="keras",
            why="KerasHub's PaliGemma ViT keeps the patches (no map pooling head)"),
        RGB_ONLY,
        Sets("final_logit_soft_cap", _gemma2(30.0, None), binds="keras",
            why="Gemma 2 soft-caps its logits at 30 (no weight): written as the released PaliGemma 2 models, none "
                "for PaliGemma"),
        Sets("attention_logit_soft_cap", _gemma2(50.0, None), binds="keras",
            why="Gemma 2 soft-caps attention logits at 50 (no weight): written as the released PaliGemma 2 models, "
                "none for PaliGemma"),
        Sets("use_sliding_window_attention", _gemma2(True, False), binds="keras",
            why="Gemma 2 attends through a sliding window in alternate layers (no weight), Gemma not"),
        Requires(
            "text_config.model_type",
            ("gemma",),
            why="PaliGemma (1)'s decoder is Gemma's "
                "(PaliGemma 2's, gemma2, is read by its own table)",
        ),
        *Requires.each(_REQUIRES),
    ),
    free=_FREE,
)

# symbol ↔ PaliGemmaConfig key for PaliGemma 2 (the second transformers class below): the
# text_config is a Gemma2Config (model_type gemma2), whose decoder always has both post norms
# (post_norm is 1: no key switches it) and whose absent num_key_value_heads is 4. Its soft caps,
# query_pre_attn_scalar and sliding windows hold no weights; the published configs keep a
# top-level num_hidden_layers, which PaliGemmaConfig does not read.
PALI_GEMMA2 = family_table(
    "pali_gemma", hf="PaliGemmaForConditionalGeneration", model_type="paligemma",
    fields=(*(f for f in _FIELDS if f.symbol not in ("post_norm", "M_kv")),
            Field("M_kv", hf="text_config.num_key_value_heads", hf_default=4),
            POST_NORM_ALWAYS),
    restrictions=(
        *Sets.each(_HF_CONSTANTS,
            why="PaliGemma 2 as KerasHub builds it: a tied Gemma 2 head without attention biases, SigLIP's vision "
                "model without its pooling head"),
        Sets("text_config.model_type", "gemma2", why="PaliGemma 2's text model is Gemma 2"),
        Requires("text_config.model_type", ("gemma2",), why="PaliGemma 2's decoder is Gemma 2's"),
        *Requires.each(_REQUIRES),
    ),
    free=_FREE | {"num_hidden_layers", "vision_config.num_positions",
                  "text_config.query_pre_attn_scalar", "text_config.sliding_window",
                  "text_config.sliding_window_size", "text_config.layer_types",
                  "text_config.final_logit_softcapping", "text_config.attn_logit_softcapping",
                  "text_config.cache_implementation"},
)

# PaliGemmaForConditionalGeneration: SiglipVisionTransformer (no head) as model.vision_tower, the
# projector model.multi_modal_projector.linear, GemmaModel under model.language_model (Gemma 1's
# norm names), lm_head tied to its embedding (listed once). PaliGemma 2 (the variant): the same
# class over a Gemma2Model, with Gemma 2's norm names (post_attention_layernorm is after
# attention there, pre_feedforward_layernorm before the feed-forward).
_WEIGHTS = {
    "vision_encoder": "vision_tower",
    "vision_encoder.embeddings.patch": "embeddings/patch_embedding",
    "vision_encoder.embeddings.position": "embeddings/position_embedding",
    "vision_encoder.blocks": r"encoder/layers/\d+",
    "vision_encoder.blocks.norm_1": "layer_norm1",
    "vision_encoder.blocks.attention": "self_attn",
    "vision_encoder.blocks.attention.query": "q_proj",
    "vision_encoder.blocks.attention.key": "k_proj",
    "vision_encoder.blocks.attention.value": "v_proj",
    "vision_encoder.blocks.attention.output": "out_proj",
    "vision_encoder.blocks.attention.scores": "scores",
    "vision_encoder.blocks.norm_2": "layer_norm2",
    "vision_encoder.blocks.ffn": "mlp",
    "vision_encoder.blocks.ffn.up": "fc1",
    "vision_encoder.blocks.ffn.down": "fc2",
    "vision_encoder.final_norm": "post_layernorm",
    "image_projection": "multi_modal_projector/linear",
    **hf_decoder_names(prefix="language_model", layers=r"language_model/layers/\d+"),
    "head": "lm_head",  # tied: lm_head shares the token table
}
TRANSFORMERS = Transformers(
    restrictions=(
        # GemmaConfig has no validate_architecture: heads need not divide the width (Gemma2Config's does)
        EVEN_HEAD_DIM_VALIDATED,
        Fixed(post_norm, 0, binds="transformers", why="PaliGemma (1)'s GemmaModel has no post norms"),
    ),
    weights=_WEIGHTS,
    variants=(Transformers(
        mapping=PALI_GEMMA2,
        restrictions=(
            *GEMMA_VALIDATED,
            Fixed(post_norm, 1, binds="transformers", why="PaliGemma 2's Gemma2Model always has both post norms"),
        ),
        weights={**_WEIGHTS, **HF_GEMMA2_NORMS},
        # Gemma2Config: every other layer in a window of 4096 (the text config's sliding_window)
        **{**sliding(2), "cost_config": {"text_config.sliding_window": sliding(2)["cost_config"]["sliding_window"]}},
    ),),
)

# a tiny Gemma decoder with a tiny SigLIP tower, and one of odd sizes (Gemma 3's vision model
# takes them too)
TINY_VISION_LM = dict(v=100, d_e=32, M=4, M_kv=1, d_k=8, d_f=48, L=2, H=32, P=8, d_vis=16, M_vis=2, d_fvis=24,
                      L_vis=2)
ODD_VISION_LM = dict(v=997, d_e=45, M=5, M_kv=5, d_k=7, d_f=13, L=3, H=21, P=7, d_vis=15, M_vis=5, d_fvis=11,
                     L_vis=3)

register(keras_hub_backbone(
    "pali_gemma",
    formula=group(
        "pali_gemma",
        vision_encoder(costs=True),
        dense("image_projection", d_vis, d_e, match="image_classifier", kind="projection",
              note="the linear projection d_vis → d_e, with bias (KerasHub's image_classifier)",
              ).with_cost(tokens=PATCHES),  # the image's patches, whatever T
        *gemma_decoder(_post_attention, _post_ffw,
                       note="image tokens attend to each other and to the prefix in full, text "
                            "causally: masks, not weights"),
        rms_norm("final_norm", match="final_normalization"),
        zero("head", "tied: the output projection is the token embedding, transposed", kind="head",
             macs=d_e * v),
    ),
    required=(v, d_e, M, d_k, d_f, L, H, P, d_vis, M_vis, d_fvis, L_vis),
    optional={M_kv: M, post_norm: 0},
    restrictions=(
        GQA,
        *VISION_SPLIT,
    ),
    mapping=MAPPING,
    transformers=TRANSFORMERS,
    examples={
        "tiny": TINY_VISION_LM,
        "tiny_gemma2": dict(v=100, d_e=32, M=4, M_kv=2, d_k=16, d_f=48, L=2, H=28, P=7, d_vis=12,
                            M_vis=3, d_fvis=20, L_vis=1, post_norm=1),
        "odd_sizes": ODD_VISION_LM,
    },
))
