"""T5Gemma 2 (Google 2025, "T5Gemma 2") as KerasHub builds it: T5Gemma2Backbone, text only
(``vision_encoder=None``).

An encoder-decoder adapted from Gemma 3: each side a stack of Gemma 3 blocks (grouped-query
attention with head width d_k and QK norm, pre- and post-norms around attention and
feed-forward, RMS norms with a scale only, GeGLU feed-forward, rotary positions). Each layer is
``sliding_attention`` or ``full_attention`` (``encoder_layer_types``, ``decoder_layer_types``):
the kinds differ in mask and rotary wavelength only, never in weights, so one block formula
times L covers both. Unlike T5Gemma, a decoder block has no separate cross-attention: its
*merged* attention attends over the decoder's own tokens and the encoder output together, with
one set of projections (keys and values of both come from the same d_e-wide projections, so the
encoder output must be d_e wide too: both sides share the width). The decoder keeps its own
token table; the LM head is that table, transposed, unless untied.

Not counted here: the SigLIP vision encoder that every released T5Gemma 2 checkpoint carries
(with the two end-of-image embeddings it adds), so the three KerasHub presets are not listed;
their text stacks are the Gemma 3 270M / 1B / 4B sizes.

transformers (T5Gemma2ForConditionalGeneration) builds the same text stacks with three named
differences: one token table for encoder, decoder and LM head when tied (KerasHub's decoder keeps
its own), a d_e-wide end-of-image embedding in each table, and the SigLIP tower with its
projector, which T5Gemma2Encoder always builds: counted at the released checkpoints' So400m/14 at
896 (416,866,032 + 1152·d_e + 1152), the one vision configuration the table reads.
"""

from __future__ import annotations

import dataclasses

import sympy

from paramcount.core.formula import Term
from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.hparams import Divisible
from paramcount.core.hparams import Relation
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import L_dec
from paramcount.core.symbols import L_enc
from paramcount.core.symbols import M
from paramcount.core.symbols import M_dec
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import M_kv_dec
from paramcount.core.symbols import T
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_f_dec
from paramcount.core.symbols import d_k
from paramcount.core.symbols import d_k_dec
from paramcount.core.symbols import tied
from paramcount.core.symbols import v
from paramcount.core.symbols import w
from paramcount.core.symbols import zeta
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import QK_NORM_KERAS
from paramcount.families._lineages import T5GEMMA_ATTENTION_BIAS
from paramcount.families._lineages import T5GEMMA_VALIDATED
from paramcount.families._lineages import T5GEMMA_VOCAB
from paramcount.families._lineages import TIED_YES
from paramcount.families._lineages import layer_types
from paramcount.families._lineages import t5gemma_heads
from paramcount.families.t5gemma2.costs import MERGED_KEPT
from paramcount.families.t5gemma2.costs import idle
from paramcount.families.t5gemma2.costs import merged_scores
from paramcount.model.components import attention
from paramcount.model.components import dense
from paramcount.model.components import gated_feed_forward
from paramcount.model.components import rms_norm
from paramcount.model.components.decoders import qk_norm
from paramcount.model.components.encoders import encoder_decoder_embeddings
from paramcount.model.components.encoders import encoder_decoder_outputs
from paramcount.model.components.vision import H
from paramcount.model.components.vision import L_vis
from paramcount.model.components.vision import M_vis
from paramcount.model.components.vision import P
from paramcount.model.components.vision import d_fvis
from paramcount.model.components.vision import d_vis
from paramcount.model.components.vision import vision_encoder
from paramcount.model.cost import with_kept
from paramcount.model.cost import without_cache
from paramcount.model.frameworks import Delta
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.mapping import Require
from paramcount.model.registry import register

IDS = ("t5gemma2",)  # the ids this folder registers


def _block(*, heads, kv_heads, key_dim, inner, attention_name: str, attention_match: str,
           norm_prefix: str, times, match: str, merged: bool = False):
    att = attention(attention_name, match=attention_match, heads=heads, kv_heads=kv_heads,
                    key_dim=key_dim, value_dim=key_dim, bias=zeta)
    children = att.children
    if merged:  # each query meets 2T keys, T of the decoder, T of the encoder (one softmax),
        # the key and value projections projecting both: the decoder's T and the encoder's T
        children = tuple(merged_scores(c) if c.name == "query" else
                         c.with_cost(tokens=2 * T) if c.name in ("key", "value") else c
                         for c in children)
    block = group(
        "blocks",
        group(
            attention_name,
            *children,
            leaf("query_norm", qk_norm * key_dim, match="query_norm", kind="norm",
                 note="RMS norm over each query head (QK norm); none when qk_norm = 0"),
            leaf("key_norm", qk_norm * key_dim, match="key_norm", kind="norm",
                 note="RMS norm over each key head (QK norm); none when qk_norm = 0"),
            match=attention_match,
            kind="attention",  # the decoder's merges self- and cross-attention in one
        ),
        gated_feed_forward(match="mlp", inner=inner, names=("gate_proj", "up_proj", "down_proj")),
        *[rms_norm(f"{p}_norm", match=f"{norm_prefix}{p}_layernorm")
          for p in ("pre_self_attention", "post_self_attention", "pre_feedforward",
                    "post_feedforward")],
        times=times,
        match=match,
        note="sliding-window and full-attention layers alike: they differ in mask and rotary "
             "wavelength, not in weights",
    )
    if not merged:
        return without_cache(block)  # the encoder's positions attend both ways: no cache
    return with_kept(block, MERGED_KEPT)


def _types(key: str):
    # Gemma 3's pattern, five sliding-window layers then one global; the kinds hold the same
    # weights, so the pattern does not change the count.
    return lambda hp: ["full_attention" if i % 6 == 5 else "sliding_attention"
                       for i in range(hp[key])]


_ENC = "encoder.text_config."  # T5Gemma2EncoderConfig nests the text encoder's Gemma 3 config
_SIDE_KEYS = {"d_f": ("intermediate_dim", "intermediate_size"),
              "L": ("num_layers", "num_hidden_layers"),
              "M": ("num_attention_heads", "num_attention_heads"),
              "M_kv": ("num_key_value_heads", "num_key_value_heads"),
              "d_k": ("head_dim", "head_dim")}
# T5Gemma2TextConfig's and T5Gemma2DecoderConfig's class defaults for keys a published config
# may leave out: the decoder's symbols default to the encoder's here, but transformers takes its
# class defaults, so an absent decoder key reads as what transformers builds.
_HF_CLASS = {"d_f": 9216, "L": 26, "M": 8, "M_kv": 4, "d_k": 256}


def _side(keras: str, hf: str, syms: dict[str, str], defaults: tuple[str, ...]) -> tuple:
    return tuple(Field(sym, keras=f"{keras}_{_SIDE_KEYS[k][0]}", hf=f"{hf}{_SIDE_KEYS[k][1]}",
                       hf_default=_HF_CLASS[k] if k in defaults else None)
                 for k, sym in syms.items())


# The SigLIP encoder of every released T5Gemma 2 checkpoint (So400m/14 at 896², the one Gemma 3
# uses): transformers builds it whatever the text side is, so the table fixes it (and refuses a
# config with another one; the text-only formula has no symbols for it).
_VISION = {"model_type": "siglip_vision_model", "hidden_size": 1152, "image_size": 896,
           "patch_size": 14, "num_hidden_layers": 27, "num_attention_heads": 16,
           "intermediate_size": 4304, "vision_use_head": False}
_SO400M = {d_vis: 1152, H: 896, P: 14, L_vis: 27, M_vis: 16, d_fvis: 4304}

# symbol ↔ T5Gemma2Backbone argument ↔ T5Gemma2Config key (nested: encoder is a
# T5Gemma2EncoderConfig whose text_config is the encoder's text config and vision_config
# SigLIP's; decoder a T5Gemma2DecoderConfig). Both sides share d_e (the merged attention projects
# the encoder output with the decoder's key and value projections) and one vocabulary, as
# transformers' validation also demands; KerasHub has one attention_bias for both sides.
MAPPING = family_table(
    "t5gemma2", hf="T5Gemma2ForConditionalGeneration", keras="T5Gemma2Backbone",
    fields=(
        T5GEMMA_VOCAB,
        Field("v", hf=_ENC + "vocab_size"),
        Field("d_e", keras="encoder_hidden_dim", hf=_ENC + "hidden_size"),
        Field("d_e", keras="decoder_hidden_dim", hf="decoder.hidden_size"),
        *_side("encoder", _ENC, {"d_f": "d_f", "L": "L_enc", "M": "M", "M_kv": "M_kv",
                                 "d_k": "d_k"}, ("M_kv", "d_k")),
        *_side("decoder", "decoder.", {"d_f": "d_f_dec", "L": "L_dec", "M": "M_dec",
                                       "M_kv": "M_kv_dec", "d_k": "d_k_dec"}, tuple(_HF_CLASS)),
        T5GEMMA_ATTENTION_BIAS,
        Field("zeta", hf=_ENC + "attention_bias", flag=True, hf_default=0),
        QK_NORM_KERAS,
        # the top-level flag: T5Gemma2Model ties the decoder's table to the encoder's, and
        # T5Gemma2ForConditionalGeneration its LM head, when it is set (the text sub-configs'
        # flags tie nothing)
        TIED_YES,
    ),
    restrictions=(
        *Sets.each({f"encoder.vision_config.{k}": x for k, x in _VISION.items()},
            why="T5Gemma2ForConditionalGeneration always builds the encoder's SigLIP tower: written as the "
                "released checkpoints have it (So400m/14 at 896, no head)"),
        Sets("encoder.mm_tokens_per_image", 256,
            why="the released checkpoints' image tokens per image (pooling only: no weights)"),
        *layer_types(_types, why="T5Gemma2Backbone requires each layer's attention kind: Gemma 3's pattern, "
                                 "five sliding-window layers then one global (no weights)"),
        Sets("sliding_window", 4, binds="keras", why="a window for the sliding-window layers, which holds no weight"),
        Sets("vision_encoder", None, binds="keras",
            why="t5gemma2's Keras model is the text encoder-decoder, without KerasHub's vision encoder"),
        *Requires.each(
            (Require(f"encoder.vision_config.{k}", (x,), "T5Gemma2ForConditionalGeneration "
            "always builds the encoder's SigLIP tower, and t5gemma2 counts it as the "
            "released checkpoints have it (So400m/14 at 896: hidden_size 1152, image_size "
            "896, patch_size 14, 27 layers of 16 heads, intermediate_size 4304, no head)",
            absent_ok=False)
            for k, x in _VISION.items()),
        ),
        Requires("encoder.vision_config.num_channels", (3,), why="the SigLIP tower of the released "
                                                                 "checkpoints takes RGB images"),
        Requires("vision_encoder", (None,), binds="keras",
                 why="t5gemma2 is the text backbone; a T5Gemma2Backbone with a vision encoder is "
                     "not mapped yet"),
    ),
    free=frozenset({
        "vocab_size", "is_encoder_decoder", "dropout_rate", "attention_dropout",
        "classifier_dropout_rate", "image_token_index", "eoi_token_index",
        *{f"encoder.{k}" for k in (
            "vocab_size", "dropout_rate", "attention_dropout", "boi_token_index",
            "eoi_token_index", "image_token_index", "mm_tokens_per_image", "tie_word_embeddings",
            "model_type")},
        *{f"{side}{k}" for side in (_ENC, "decoder.") for k in (
            "hidden_activation", "hidden_act", "max_position_embeddings", "rms_norm_eps",
            "rope_theta", "rope_parameters", "rope_scaling", "rope_local_base_freq",
            "attention_dropout", "query_pre_attn_scalar", "sliding_window", "layer_types",
            "sliding_window_pattern", "final_logit_softcapping", "attn_logit_softcapping",
            "dropout_rate", "is_decoder", "is_encoder_decoder", "tie_word_embeddings",
            "cross_attention_hidden_size", "use_bidirectional_attention", "add_cross_attention",
            "chunk_size_feed_forward", "model_type")},
        *{f"encoder.vision_config.{k}" for k in (
            "layer_norm_eps", "hidden_act", "attention_dropout", "dropout_rate", "vocab_size",
            "tie_word_embeddings", "is_decoder", "is_encoder_decoder", "add_cross_attention",
            "chunk_size_feed_forward", "cross_attention_hidden_size")},
        # KerasHub: settings that hold no weight (cross_attention_hidden_size too: the merged
        # attention projects the encoder output with the decoder's own key and value layers;
        # dropout_rate, attention_dropout and eoi_token_index are above)
        "encoder_layer_types", "decoder_layer_types", "sliding_window", "rms_norm_eps",
        "query_pre_attn_scalar", "hidden_activation", "initializer_range",
        "cross_attention_hidden_size", "attn_logit_softcapping", "final_logit_softcapping",
        "rope_max_wavelength", "global_rope_scaling_factor", "encoder_rope_max_wavelength",
        "encoder_global_rope_scaling_factor",
    }),
)


def _at(term: Term, values: dict) -> Term:
    """``term`` with its symbols replaced by numbers (the fixed SigLIP tower)."""
    return dataclasses.replace(
        term, expr=None if term.expr is None else sympy.sympify(term.expr).xreplace(values),
        times=term.times.xreplace(values), children=tuple(_at(c, values) for c in term.children),
        cost=tuple((k, sympy.sympify(x).xreplace(values)) for k, x in term.cost))


def _hf_block(side: str, prefix: str, attention_name: str) -> dict[str, str]:
    att = f"{side}.blocks.{attention_name}"
    ffn = f"{side}.blocks.ffn"
    return {
        f"{side}.blocks": rf"{prefix}/layers/\d+",
        att: "self_attn", f"{att}.query": "q_proj", f"{att}.key": "k_proj",
        f"{att}.value": "v_proj", f"{att}.output": "o_proj", f"{att}.query_norm": "q_norm",
        f"{att}.key_norm": "k_norm",
        ffn: "mlp", f"{ffn}.gate": "gate_proj", f"{ffn}.up": "up_proj", f"{ffn}.down": "down_proj",
        **{f"{side}.blocks.{p}_norm": f"{p.replace('self_attention', 'self_attn')}_layernorm"
           for p in ("pre_self_attention", "post_self_attention", "pre_feedforward",
                     "post_feedforward")},
    }


_TOWER = "T5Gemma2ForConditionalGeneration always builds the encoder's SigLIP tower and its " \
         "projector (T5Gemma2Encoder has no text-only form); KerasHub's text-only backbone has " \
         "neither. Counted at the released checkpoints' So400m/14 at 896 (the table refuses " \
         "another)"

# T5Gemma2ForConditionalGeneration: model.encoder.text_model (token table, layers, norm),
# model.encoder.vision_tower (SiglipVisionModel) and model.encoder.multi_modal_projector,
# model.decoder (token table, layers of merged attention named self_attn, norm), lm_head.out_proj.
# Tied (tie_word_embeddings): the decoder's table and the LM head are the encoder's table, and
# the decoder's end-of-image embedding the encoder's (listed once each). embed_scale and the
# rotary inverse frequencies are non-persistent buffers.
TRANSFORMERS = Transformers(
    restrictions=(
        *T5GEMMA_VALIDATED,
        Holds(Divisible(d_e, M_dec), binds="transformers",
            why="transformers validates each side's width divisible by its heads, even with head_dim set"),
        Fixed(qk_norm, 1, binds="transformers", why="T5Gemma2's attention always normalizes queries and keys"),
        Holds(Relation(M_dec, "==", M, reason="prove: decoder heads as the encoder's"), binds="proof"),
        Holds(
            Relation(M_kv_dec, "==", M_kv,
            reason="prove: decoder key/value heads as the encoder's"),
            binds="proof",
        ),
    ),
    # d_e divisible by M = M_kv·M' and by M_dec = M_kv_dec·M_dec' makes d_e a product of five
    # free factors, too many for prove's random ranges (values below 2^24): prove covers the
    # decoder with the encoder's head counts (every released checkpoint); verify builds the
    # unbalanced sets too (tiny_unbalanced_untied, odd_biases)
    deltas=(
        Delta("decoder_token_embedding",
              leaf("decoder_token_embedding", (1 - tied) * v * d_e, kind="embedding",
                   note="the decoder's own v × d_e table only when untied"),
              "T5Gemma2Model ties the decoder's token table to the encoder's when "
              "tie_word_embeddings is set (every released checkpoint): one table serves "
              "encoder, decoder and LM head; KerasHub's decoder keeps its own"),
        Delta("eoi_embeddings",
              leaf("eoi_embeddings", (2 - tied) * d_e, kind="embedding",
                   note="a learned end-of-image embedding in each token table (T5Gemma2Text"
                        "ScaledWordEmbedding); the decoder's is the encoder's when tied"),
              "transformers' token tables always hold a d_e-wide end-of-image embedding; "
              "KerasHub adds them only with a vision encoder"),
        Delta("vision_tower",
              idle(_at(vision_encoder("vision_tower"), _SO400M)),
              _TOWER),
        Delta("vision_projector",
              idle(group("vision_projector",
                    rms_norm("norm", _SO400M[d_vis]),
                    dense("projection", _SO400M[d_vis], d_e, bias=0),
                    kind="projection",
                    note="RMS norm (1152) and a bias-free projection 1152 → d_e of the pooled "
                         "image tokens")),
              _TOWER),
    ),
    weights={
        "encoder_token_embedding": "model/encoder/text_model/embed_tokens/weight",
        "decoder_token_embedding": "model/decoder/embed_tokens/weight",
        "eoi_embeddings": "embed_tokens/eoi_embedding",
        **_hf_block("encoder", "model/encoder/text_model", "self_attention"),
        **_hf_block("decoder", "model/decoder", "merged_attention"),
        "final_norms": "model/(?:encoder/text_model|decoder)/norm",
        "head": "lm_head/out_proj",
        "vision_tower": "model/encoder/vision_tower",
        "vision_tower.embeddings": "embeddings",
        "vision_tower.embeddings.patch": "patch_embedding",
        "vision_tower.embeddings.position": "position_embedding",
        "vision_tower.blocks": r"encoder/layers/\d+",
        "vision_tower.blocks.norm_1": "layer_norm1",
        "vision_tower.blocks.attention": "self_attn",
        "vision_tower.blocks.attention.query": "q_proj",
        "vision_tower.blocks.attention.key": "k_proj",
        "vision_tower.blocks.attention.value": "v_proj",
        "vision_tower.blocks.attention.output": "out_proj",
        "vision_tower.blocks.norm_2": "layer_norm2",
        "vision_tower.blocks.ffn": "mlp",
        "vision_tower.blocks.ffn.up": "fc1",
        "vision_tower.blocks.ffn.down": "fc2",
        "vision_tower.final_norm": "post_layernorm",
        "vision_projector": "model/encoder/multi_modal_projector",
        "vision_projector.norm": "mm_soft_emb_norm",
        "vision_projector.projection": "mm_input_projection_weight",
    },
    # the decoder's window (no weight), written by the cost measurement: its cache keeps it
    cost_config={"decoder.sliding_window": (w, 4096)},
)

register(keras_hub_backbone(
    "t5gemma2",
    formula=group(
        "t5gemma2",
        *encoder_decoder_embeddings(d_e),
        group(
            "encoder",
            _block(heads=M, kv_heads=M_kv, key_dim=d_k, inner=d_f,
                   attention_name="self_attention", attention_match="self_attention",
                   norm_prefix="", times=L_enc, match=r"encoder_layer_\d+"),
        ),
        group(
            "decoder",
            _block(heads=M_dec, kv_heads=M_kv_dec, key_dim=d_k_dec, inner=d_f_dec,
                   attention_name="merged_attention", attention_match="merged_attention",
                   norm_prefix="decoder_", times=L_dec, match=r"decoder_layer_\d+",
                   merged=True),
        ),
        *encoder_decoder_outputs(2 * d_e, head_width=d_e, whose="the encoder's and decoder's"),
    ),
    required=(v, d_e, d_f, M, M_kv, d_k, L_enc),
    optional={L_dec: L_enc, d_f_dec: d_f, M_dec: M, M_kv_dec: M_kv, d_k_dec: d_k, zeta: 0,
              qk_norm: 1, tied: 1},
    restrictions=(
        *t5gemma_heads("T5Gemma 2"),
    ),
    presets=None,
    mapping=MAPPING,
    transformers=TRANSFORMERS,
))
