"""Gemma 3 (Gemma Team 2025), text backbone, as KerasHub builds it: keras_hub.models.Gemma3Backbone
without a vision encoder.

Gemma 2's block (GeGLU feed-forward, RMS norms with (1 + scale), pre- and post-norms around
attention and feed-forward, tied head) with QK norm: an RMS norm over each query head and each
key head (one d_k-wide scale each, shared by the heads). Five of every six layers attend in a
sliding window with local rotary positions, the sixth globally with long-range rotary positions:
the layers differ in masks and rotary wavelengths only, never in weights, so one block formula
times L covers both kinds (the reference builds them interleaved as the checkpoints do).

Unlike GemmaBackbone, Gemma3Backbone's ``intermediate_dim`` is the width of each of the gate and
up projections (``gate_dim_reduction=1``): it equals d_f here.

``gemma3_embedding`` is the same backbone built as an embedding model (EmbeddingGemma): the
causal mask becomes bidirectional (no weights) and mean pooling feeds two bias-free dense layers,
d_e → d_pool → d_sent. transformers builds its backbone (Gemma3TextModel, what EmbeddingGemma's
config.json names); the dense layers are sentence-transformers' modules: a named delta.
"""

from __future__ import annotations

from functools import partial

from paramcount.core.formula import group
from paramcount.core.formula import zero
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.restrictions import select
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import d_pool
from paramcount.core.symbols import d_sent
from paramcount.core.symbols import v
from paramcount.families._decoders import RMS_CAUSAL_LM_FREE
from paramcount.families._decoders import sliding
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import DECODER_FIELDS
from paramcount.families._lineages import FFN
from paramcount.families._lineages import GEMMA3_TIED
from paramcount.families._lineages import GEMMA_VALIDATED
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HEAD_DIM
from paramcount.families._lineages import NO_IMAGE_SIZE
from paramcount.families._lineages import POST_ATTENTION_NORM
from paramcount.families._lineages import POST_FFW_NORM
from paramcount.families._lineages import QK_NORM_KERAS
from paramcount.families._lineages import post_norms_always
from paramcount.families.gemma import gemma_decoder
from paramcount.model.components import dense
from paramcount.model.components.decoders import gemma_attention
from paramcount.model.components.decoders import post_attn_norm
from paramcount.model.components.decoders import post_ffw_norm
from paramcount.model.components.decoders import post_norm
from paramcount.model.components.decoders import post_norms
from paramcount.model.components.decoders import qk_norm
from paramcount.model.components.llama_like import HF_GEMMA2_NORMS
from paramcount.model.components.llama_like import hf_decoder_names
from paramcount.model.components.modern import rms_norm
from paramcount.model.frameworks import Always
from paramcount.model.frameworks import Delta
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("gemma3", "gemma3_embedding")  # the ids this folder registers


# KerasHub's use_post_attention_norm and use_post_ffw_norm, apart; post_norm sets both
_post_attention, _post_ffw = post_norms(post_attn_norm, post_ffw_norm)
_POST = {post_attn_norm: post_norm, post_ffw_norm: post_norm}

_BACKBONE = (
    # Gemma's decoder, its attention with QK norms
    *gemma_decoder(_post_attention, _post_ffw, gemma_attention(with_qk_norm=qk_norm),
                   note="sliding-window (local) and global layers alike: they differ in mask and rotary "
                        "wavelength, not in weights"),
    rms_norm("final_norm", match="final_normalization"),
)

# The settings this family's architectures share; each call adds (or overrides) the rest.
_architecture = partial(
    keras_hub_backbone,
    required=(v, d_e, M, d_k, d_f, L),
    restrictions=(GQA,),
)

def _bidirectional_window(config) -> tuple:
    """The window a Gemma3TextConfig keeps: with use_bidirectional_attention it halves the
    file's sliding_window, to ``w // 2 + 1`` (and writes it back as ``(w - 1) * 2``), so
    EmbeddingGemma's class default 4096 keeps 2,048 positions a windowed layer, not 4,095."""
    w = config.get("sliding_window")
    if config.get("use_bidirectional_attention") is True and type(w) is int and w > 0:
        return (("sliding_window", w // 2 + 1),)
    return ()


# symbol ↔ Gemma3Backbone argument ↔ Gemma3TextConfig key (model_type gemma3_text). The text
# config has no switch for QK norms or post norms (Gemma3ForCausalLM always has both); KerasHub
# has one per norm, and defaults the post norms to off. Gemma3TextConfig's num_key_value_heads
# (4) and head_dim (256) have class defaults, not derived ones: both keys are read.
MAPPING = family_table(
    "gemma3", hf="Gemma3ForCausalLM", keras="Gemma3Backbone", model_type="gemma3_text",
    fields=(
        *DECODER_FIELDS, FFN, HEAD_DIM, QK_NORM_KERAS,
        # KerasHub's two switches, apart (post_norm, their common default, sets no weight itself)
        POST_ATTENTION_NORM, POST_FFW_NORM,
    ),
    restrictions=(
        GEMMA3_TIED,
        Sets("attention_bias", False, why="KerasHub's Gemma 3 attention has no biases"),
        NO_IMAGE_SIZE,
        Sets("vision_encoder", None, binds="keras", why="the text backbone has no vision encoder"),
        Sets("use_sliding_window_attention", True, binds="keras",
            why="Gemma 3 attends through a sliding window in five of every six layers (no weight), as the released "
                "models"),
        Sets("sliding_window_size", 512, binds="keras", why="the released Gemma 3 models' window (no weight)"),
        Requires("tie_word_embeddings", (True,), why="Gemma 3's head is the token embedding (tied)"),
        Requires("attention_bias", (False,), why="KerasHub's Gemma 3 attention has no biases"),
        Requires("vision_encoder", (None,), binds="keras",
                 why="a Gemma3Backbone with a vision encoder is gemma3_vision, not mapped to a "
                     "config reader yet"),
        Requires("is_embedding_model", (False,), binds="keras",
                 why="an embedding Gemma3Backbone is gemma3_embedding"),
    ),
    # the text backbone, as the checkpoints build it (five local layers to one global)
    free=RMS_CAUSAL_LM_FREE | {
        "hidden_activation", "rope_local_base_freq", "query_pre_attn_scalar", "sliding_window",
        "sliding_window_pattern", "layer_types", "final_logit_softcapping", "attn_logit_softcapping",
        "use_bidirectional_attention", "cache_implementation", "image_size", "query_head_dim_normalize",
        "attention_logit_soft_cap", "final_logit_soft_cap", "use_sliding_window_attention", "sliding_window_size",
        "local_rope_scaling_factor", "global_rope_scaling_factor", "layer_norm_epsilon", "dropout",
        "pooling_intermediate_dim", "embedding_dim",
    },
    hf_cost_reading=_bidirectional_window,
)

# Gemma3ForCausalLM: Gemma 2's names (input_layernorm, post_attention_layernorm,
# pre_feedforward_layernorm, post_feedforward_layernorm) and q_norm / k_norm; the head is tied
# (lm_head is embed_tokens, listed once); embed_scale is a non-persistent buffer.
TRANSFORMERS = Transformers(
    restrictions=(
        *GEMMA_VALIDATED,
        Fixed(qk_norm, 1, binds="transformers", why="Gemma3ForCausalLM always normalizes queries and keys"),
        Fixed(
            post_norm,
            1,
            binds="transformers",
            why="Gemma3ForCausalLM always has post-attention and post-feed-forward "
                "norms",
        ),
        *post_norms_always("Gemma3ForCausalLM"),
    ),
    weights={
        **hf_decoder_names(norms=("norm_1", "post_attention_norm")), **HF_GEMMA2_NORMS,
        "blocks.attention.query_norm": "q_norm",
        "blocks.attention.key_norm": "k_norm",
        "head": "lm_head",
    },
    **sliding(6),  # Gemma3TextConfig: five of six layers in a window of 4096
)

register(_architecture(
    "gemma3",
    formula=group(
        "gemma3",
        *_BACKBONE,
        zero("head", "tied: the output projection is the token embedding, transposed", kind="head",
             macs=d_e * v),
    ),
    optional={M_kv: M, qk_norm: 1, post_norm: 1, **_POST},
    mapping=MAPPING,
    transformers=TRANSFORMERS,
))

# symbol ↔ Gemma3Backbone(is_embedding_model=True) argument ↔ Gemma3TextConfig key: gemma3's
# rows and the pooling head's two widths. EmbeddingGemma's transformers config.json names
# Gemma3TextModel, the backbone alone: its dense projections are sentence-transformers' Dense
# modules (2_Dense/, 3_Dense/ beside config.json), so d_pool and d_sent have no transformers key
# (a config read takes their defaults, 4·d_e and d_e: EmbeddingGemma's 3072 and 768). KerasHub's
# convert_gemma3 also takes the pooling width as 3072 whatever hidden_size is, and the embedding
# width as hidden_size.
EMBEDDING_MAPPING = family_table(
    "gemma3_embedding", hf="Gemma3TextModel", keras="Gemma3Backbone", model_type="gemma3_text",
    fields=(*MAPPING.fields, Field('d_pool', keras='pooling_intermediate_dim'), Field('d_sent', keras='embedding_dim')),
    restrictions=(
        Sets("attention_bias", False, why="KerasHub's Gemma 3 attention has no biases"),
        Sets("use_bidirectional_attention", True,
            why="EmbeddingGemma attends both ways (no weight), as its released config says"),
        *select(MAPPING.restrictions, Sets, "keras"),  # gemma3's rows, with their whys
        Sets("use_bidirectional_attention", True, binds="keras",
            why="EmbeddingGemma attends both ways (no weight), as KerasHub's converter sets it"),
        Sets("is_embedding_model", True, binds="keras",
            why="the formula counts Gemma3Backbone with its pooling head (EmbeddingGemma)"),
        Requires("attention_bias", (False,), why="KerasHub's Gemma 3 attention has no biases"),
        Requires("vision_encoder", (None,), binds="keras", why="an embedding Gemma3Backbone has no vision encoder"),
        Requires(
            "is_embedding_model",
            (True,),
            absent_ok=False,
            binds="keras",
            why="a Gemma3Backbone without the pooling head is "
                "gemma3",
        ),
    ),
    # Gemma3TextModel has no head, tied or not
    free=(MAPPING.free - {"pooling_intermediate_dim", "embedding_dim"})
    | {"tie_word_embeddings"},
    hf_cost_reading=_bidirectional_window,
)

# Gemma3TextModel: Gemma3ForCausalLM's names without its ``model.`` prefix, no head; the
# pooling head is not transformers' (see above): a delta removes it.
EMBEDDING_TRANSFORMERS = Transformers(
    restrictions=(
        *select(TRANSFORMERS.restrictions, Holds, "transformers"),
        *select(TRANSFORMERS.restrictions, Holds, "proof"),
        *Fixed.each(
            tuple(Always(a.symbol, a.value, a.reason.replace("Gemma3ForCausalLM", "Gemma3TextModel"))
            for a in TRANSFORMERS.always),
        ),
    ),
    weights={**{k: w for k, w in TRANSFORMERS.weights.items() if k != "head"},
             "embeddings.token": "embed_tokens", "final_norm": "norm"},
    deltas=(Delta("pooling_head", None,
                  "Gemma3TextModel is the backbone alone: EmbeddingGemma's two dense projections "
                  "are sentence-transformers' Dense modules, which transformers does not build"),),
    **sliding(6, 2049),  # bidirectional: the config halves the window, 4096 // 2 + 1
)

register(_architecture(
    "gemma3_embedding",
    formula=group(
        "gemma3_embedding",
        *_BACKBONE,
        group(
            "pooling_head",
            zero("mean_pool", "mean over the unpadded positions: no weights"),
            dense("dense", d_e, d_pool, bias=0, match="pooling_dense_1"),
            dense("projection", d_pool, d_sent, bias=0, match="embedding_projection"),
            zero("normalize", "unit (L2) normalisation: no weights"),
            kind="head",
        ),
    ),
    optional={M_kv: M, qk_norm: 1, post_norm: 1, **_POST, d_pool: 4 * d_e, d_sent: d_e},
    mapping=EMBEDDING_MAPPING,
    transformers=EMBEDDING_TRANSFORMERS,
))
