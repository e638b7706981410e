"""Gemma and Gemma 2 (Gemma Team 2024) as KerasHub builds them: keras_hub.models.GemmaBackbone.

A token embedding (tied output head, scaled by √d_e: no weights), rotary positions, L pre-norm
blocks and a final RMS norm. Attention has M query heads and M_kv key/value heads of a free width
d_k (Gemma 7B: 16·256 = 4096 ≠ d_e = 3072; Gemma 2B is multi-query, M_kv = 1), no biases. The
feed-forward is GeGLU: gate and up projections of width d_f each, then down.

RMS norm conventions: Gemma's RMS norm multiplies by (1 + scale), the scale initialised to zero;
it is one d_e-wide vector all the same. Gemma 2 adds a norm after attention and after the
feed-forward (``post_norm = 1``: 4 norms a block instead of 2); its logit soft-capping and
alternating sliding-window attention hold no weights. KerasHub switches the two post-norms apart
(``use_post_attention_norm``, ``use_post_ffw_norm``): so do ``post_attn_norm`` and
``post_ffw_norm``, whose default is ``post_norm`` (the presets' one value for both).

d_f is the width of *each* of the gate and up projections (Hugging Face's ``intermediate_size``).
KerasHub's ``intermediate_dim`` and the Gemma papers' "feedforward hidden dims" are 2·d_f (both
halves together); the reference passes ``intermediate_dim = 2·d_f``.
"""

from __future__ import annotations

from paramcount.core.formula import Term
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
from paramcount.families._decoders import RMS_CAUSAL_LM_FREE
from paramcount.families._decoders import sliding
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import EVEN_HEAD_DIM_VALIDATED
from paramcount.families._lineages import GEMMA_VALIDATED
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HEAD_DIM
from paramcount.families._lineages import KV_HEADS
from paramcount.families._lineages import LAYERS
from paramcount.families._lineages import POST_ATTENTION_NORM
from paramcount.families._lineages import POST_FFW_NORM
from paramcount.families._lineages import POST_NORM_ALWAYS
from paramcount.families._lineages import QUERY_HEADS
from paramcount.families._lineages import VOCAB
from paramcount.families._lineages import WIDTH
from paramcount.families._lineages import post_norms_always
from paramcount.model.components.decoders import gemma_attention
from paramcount.model.components.decoders import post_attn_norm
from paramcount.model.components.decoders import post_ffw_norm
from paramcount.model.components.decoders import post_norm
from paramcount.model.components.decoders import post_norms
from paramcount.model.components.llama_like import HF_GEMMA2_NORMS
from paramcount.model.components.llama_like import embeddings
from paramcount.model.components.llama_like import hf_decoder_names
from paramcount.model.components.modern import gated_feed_forward
from paramcount.model.components.modern import rms_norm
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("gemma",)  # the ids this folder registers


# KerasHub's use_post_attention_norm and use_post_ffw_norm, apart; post_norm sets both
_post_attention, _post_ffw = post_norms(post_attn_norm, post_ffw_norm)
_POST = {post_attn_norm: post_norm, post_ffw_norm: post_norm}


def _gemma2(on, off):
    return lambda hp: on if hp["post_norm"] else off


# symbol ↔ GemmaBackbone argument ↔ GemmaConfig key (model_type gemma: Gemma 1). GemmaBackbone's
# intermediate_dim is 2·d_f. GemmaConfig's num_key_value_heads (16) and head_dim (256) are class
# defaults, not derived ones: both keys are read. Gemma 2 configs (model_type gemma2,
# Gemma2ForCausalLM) are read by GEMMA2 below, the table of the second transformers class.
_SHAPES = (
    VOCAB,
    LAYERS,
    QUERY_HEADS,
    KV_HEADS,
    WIDTH,
    Field("d_f", keras="intermediate_dim", hf="intermediate_size", keras_scale=2),
    HEAD_DIM,
)
_HF_FREE = RMS_CAUSAL_LM_FREE | {
    "hidden_activation", "use_bidirectional_attention", "query_head_dim_normalize", "final_logit_soft_cap",
    "attention_logit_soft_cap", "use_sliding_window_attention", "sliding_window_size", "layer_norm_epsilon", "dropout",
}
MAPPING = family_table(
    "gemma", hf="GemmaForCausalLM", keras="GemmaBackbone",
    fields=(
        *_SHAPES,
        # KerasHub's two switches, apart; post_norm (Gemma 2, their common default) is read from
        # the sliding-window switch KerasHub's converter sets for Gemma 2 alone (no weights)
        POST_ATTENTION_NORM,
        POST_FFW_NORM,
        Field("post_norm", keras="use_sliding_window_attention", flag=True, keras_default=0),
    ),
    restrictions=(
        Sets("tie_word_embeddings", True,
            why="Gemma's output head is the token embedding (tied), as KerasHub builds it"),
        Sets("attention_bias", False, why="KerasHub's Gemma attention has no biases"),
        Sets("final_logit_soft_cap", _gemma2(30.0, None), binds="keras",
            why="Gemma 2 soft-caps its logits at 30 (no weight): written as the released models, none for Gemma"),
        Sets("attention_logit_soft_cap", _gemma2(50.0, None), binds="keras",
            why="Gemma 2 soft-caps attention logits at 50 (no weight): written as the released models, none for "
                "Gemma"),
        Requires("tie_word_embeddings", (True,), why="Gemma's head is the token embedding (tied)"),
        Requires("attention_bias", (False,), why="KerasHub's Gemma attention has no biases"),
    ),
    # Gemma 2's weightless options, set as KerasHub's converter sets them, so the model built
    # is Gemma 2's when post_norm = 1
    free=_HF_FREE,
)

# symbol ↔ Gemma2Config key (model_type gemma2, Gemma2ForCausalLM): Gemma's keys, and both post
# norms always (no key switches them: post_norm is 1, the two flags default to it). Its
# num_key_value_heads (4) and head_dim (256) are Gemma2Config's class defaults. Soft caps,
# query_pre_attn_scalar and the alternating sliding windows (layer_types) hold no weights.
GEMMA2 = family_table(
    "gemma", hf="Gemma2ForCausalLM", model_type="gemma2",
    fields=(
        *(f for f in _SHAPES if f.symbol not in ("M_kv", "d_k")),
        Field("M_kv", hf="num_key_value_heads", hf_default=4),
        Field("d_k", hf="head_dim", hf_default=256),
        POST_NORM_ALWAYS,
    ),
    restrictions=(
        Sets("tie_word_embeddings", True,
            why="Gemma 2's output head is the token embedding (tied), as KerasHub builds it"),
        Sets("attention_bias", False, why="KerasHub's Gemma 2 attention has no biases"),
        Requires("tie_word_embeddings", (True,), why="Gemma 2's head is the token embedding (tied)"),
        Requires("attention_bias", (False,), why="KerasHub's Gemma attention has no biases"),
    ),
    free=_HF_FREE | {"query_pre_attn_scalar", "sliding_window", "layer_types",
                     "final_logit_softcapping", "attn_logit_softcapping",
                     "cache_implementation"},
)

# GemmaForCausalLM: input_layernorm before attention, post_attention_layernorm before the
# feed-forward (Gemma 1 has no post norms); the head is tied; embed_scale is a non-persistent
# buffer. Gemma2ForCausalLM (the variant, for both post norms): input_layernorm,
# post_attention_layernorm *after* attention, pre_feedforward_layernorm, post_feedforward_layernorm.
# Neither class builds one post norm without the other (KerasHub's post_attention_norm_only).
_WEIGHTS = {**hf_decoder_names(), "head": "lm_head"}  # tied: lm_head shares the token table
TRANSFORMERS = Transformers(
    restrictions=(
        # GemmaConfig has no validate_architecture: heads need not divide the width (Gemma2Config's does)
        EVEN_HEAD_DIM_VALIDATED,
        Fixed(post_attn_norm, 0, binds="transformers", why="GemmaForCausalLM has no post-attention norm"),
        Fixed(post_ffw_norm, 0, binds="transformers", why="GemmaForCausalLM has no post-feed-forward norm"),
    ),
    weights=_WEIGHTS,
    variants=(Transformers(
        mapping=GEMMA2,
        restrictions=(
            *GEMMA_VALIDATED,
            *post_norms_always("Gemma2ForCausalLM"),
        ),
        weights={**_WEIGHTS, **HF_GEMMA2_NORMS},
        **sliding(2),  # Gemma2Config: every other layer in a window of 4096
    ),),
)

def gemma_decoder(post_attention: Term, post_ffw: Term, attention: Term | None = None,
                  **blocks: str) -> tuple[Term, Term]:
    """Gemma's token embedding and L decoder blocks (pre norms, attention, GeGLU) with the post
    norms given: the lineage's decoder, which PaliGemma's language model and Gemma 3's (its
    ``attention`` with QK norms) are too. ``blocks``: more of the block group's fields (its
    ``note``)."""
    return (
        embeddings("token_embedding"),
        group(
            "blocks",
            rms_norm("norm_1", match="pre_attention_norm"),
            gemma_attention() if attention is None else attention,
            post_attention,
            rms_norm("norm_2", match="pre_ffw_norm"),
            gated_feed_forward(names=("ffw_gating", "ffw_gating_2", "ffw_linear")),
            post_ffw,
            times=L,
            match=r"decoder_block_\d+",
            **blocks,
        ),
    )


register(keras_hub_backbone(
    "gemma",
    formula=group(
        "gemma",
        *gemma_decoder(_post_attention, _post_ffw),
        rms_norm("final_norm", match="final_normalization"),
        zero("head", "tied: the output projection is the token embedding, transposed "
                     "(soft-capped in Gemma 2: no weights)", kind="head", macs=d_e * v),
    ),
    required=(v, d_e, M, d_k, d_f, L),
    optional={M_kv: M, post_norm: 0, **_POST},
    restrictions=(
        GQA,
    ),
    mapping=MAPPING,
    transformers=TRANSFORMERS,
))
