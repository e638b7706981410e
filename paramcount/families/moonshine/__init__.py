"""Moonshine (Jeffries et al. 2024, "Moonshine: Speech Recognition for Live Transcription and
Voice Commands") as KerasHub builds it: MoonshineBackbone.

An encoder-decoder over the raw waveform. The front end is three convolutions: 1 → d_e channels
(kernel 127, stride 64, no bias) followed by a one-group norm (scale and shift), d_e → 2·d_e
(kernel 7, stride 3) and 2·d_e → d_e (kernel 3, stride 2), both with biases. Then L_enc
pre-norm encoder blocks and L_dec decoder blocks with cross-attention; every layer norm has a
scale and no shift, attention projections carry biases only with ``attention_bias`` (ζ; off in
the published models), and positions are rotary over part of each head (no learned table). The
feed-forward is x_f·d_e wide: GELU (two biased dense layers) in the encoder, SwiGLU (its gate and
up projections as one d_e × 2·d_f layer) in the decoder; ``encoder_use_swiglu_activation`` and
``decoder_use_swiglu_activation`` swap them (flags glu_enc, glu_dec). KerasHub's
``intermediate_dim`` holds no weight: the width comes from ``feedforward_expansion_factor``.
The LM head is the token table, transposed (tied).

Each rotary embedding keeps its inverse frequencies as a non-trainable weight: f_rot = ⌊p·d_k⌋/2
(rounded down to whole pairs) per stack, p = ``partial_rotary_factor`` = 0.62, counted apart.
The decoder's attention layers and norms are left unnamed by KerasHub (auto-numbered), so a
decoder block's self- and cross-attention are one term × 2 and its three norms (before
self-attention, cross-attention and the feed-forward) one term × 3.

transformers' MoonshineForConditionalGeneration differs by declared deltas: no rotary weight (a
non-persistent buffer), no bias on o_proj; its encoder MLP never gates and its decoder MLP always
does, and its intermediate_size is any width (d_f settable there).
"""

from __future__ import annotations

import sympy

from paramcount.core.formula import Term
from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.formula import zero
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import B
from paramcount.core.symbols import L_dec
from paramcount.core.symbols import L_enc
from paramcount.core.symbols import M
from paramcount.core.symbols import M_dec
from paramcount.core.symbols import T
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import d_k_dec
from paramcount.core.symbols import f_rot
from paramcount.core.symbols import f_rot_dec
from paramcount.core.symbols import glu_dec
from paramcount.core.symbols import glu_enc
from paramcount.core.symbols import v
from paramcount.core.symbols import x_f
from paramcount.core.symbols import zeta
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import VOCAB
from paramcount.families._lineages import WIDTH
from paramcount.model.components import attention
from paramcount.model.components import dense
from paramcount.model.components import embedding
from paramcount.model.components import layer_norm
from paramcount.model.components.audio import conv1d
from paramcount.model.components.stacks import repeat
from paramcount.model.cost import without_cache
from paramcount.model.frameworks import Delta
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("moonshine",)  # the ids this folder registers


# symbol ↔ MoonshineBackbone argument ↔ MoonshineConfig key. KerasHub states the feed-forward
# width as an expansion factor of the model width (its intermediate_dim holds no weight),
# transformers as intermediate_size = x_f·d_e; KerasHub's front end width filter_dim is the model
# width. transformers' key/value head counts must be the query heads' (the formula has no
# grouped-query attention); its gating is fixed by the class (Transformers.always below).
MAPPING = family_table(
    # MoonshineForConditionalGeneration's proj_out is the token table (tied): its weights are
    # MoonshineModel's, the class the published checkpoints name.
    "moonshine", hf=("MoonshineForConditionalGeneration", "MoonshineModel"), keras="MoonshineBackbone",
    fields=(
        VOCAB,
        WIDTH,
        Field("d_e", keras="filter_dim"),
        Field("L_enc", keras="encoder_num_layers", hf="encoder_num_hidden_layers"),
        # MoonshineConfig's own defaults where a key is absent (moonshine-tiny's values), not
        # the formula's (L_dec = L_enc, M_dec = M, x_f = 4)
        Field("L_dec", keras="decoder_num_layers", hf="decoder_num_hidden_layers", hf_default=6),
        Field("M", keras="encoder_num_heads", hf="encoder_num_attention_heads"),
        Field("M", hf="encoder_num_key_value_heads"),  # absent: the query heads
        Field("M_dec", keras="decoder_num_heads", hf="decoder_num_attention_heads", hf_default=8),
        Field("M_dec", hf="decoder_num_key_value_heads"),
        Field("x_f", keras="feedforward_expansion_factor", hf="intermediate_size", hf_per="d_e",
              keras_default=4, hf_default=sympy.Integer(1152) / d_e),
        Field("glu_enc", keras="encoder_use_swiglu_activation", flag=True, keras_default=0),
        Field("glu_dec", keras="decoder_use_swiglu_activation", flag=True, keras_default=1),
        Field("zeta", keras="attention_bias", hf="attention_bias", flag=True, keras_default=0,
              hf_default=0),
    ),
    restrictions=(
        Sets("tie_word_embeddings", True, why="Moonshine's LM head is the token table (tied)"),
        Sets("intermediate_size", lambda hp: hp["d_f"],
            why="written from d_f itself: in transformers' view the feed-forward is any width"),
        Sets("intermediate_dim", lambda hp: hp["d_f"], binds="keras",
            why="written from d_f itself: KerasHub builds x_f·d_e, which d_f equals wherever it builds the set"),
        Requires(
            "tie_word_embeddings",
            (True,),
            why="the LM head counts only as the token table, "
                "tied",
        ),
        Requires(
            "head_dim",
            (),
            why="MoonshineConfig's head_dim sets the encoder's and the decoder's head width "
                "alike (issue 32), which the formula has as d_e/M and d_e/M_dec",
        ),
        Requires(
            "pad_head_dim_to_multiple_of",
            (),
            binds="keras",
            why="KerasHub widens each head's projections to "
                "the multiple, which the formula's d_k = d_e/M does not",
        ),
        Requires(
            "partial_rotary_factor",
            (0.62,),
            binds="keras",
            why="the rotary inverse frequencies f_rot, "
                "f_rot_dec are read at KerasHub's default factor 0.62 only (set them with --set "
                "for another)",
        ),
    ),
)


def _mlp(glu, *, match: str):
    """MoonshineMLP: ``dense_1`` d_e → (1 + glu)·d_f (SwiGLU's gate and up as one layer), then
    ``dense_2`` d_f → d_e, both with biases."""
    return group(
        "ffn",
        dense("up", d_e, (1 + glu) * d_f, match="dense_1",
              note="d_e → d_f (GELU), or → 2·d_f: SwiGLU's gate and up as one layer"),
        dense("down", d_f, d_e, match="dense_2"),
        match=match,
        kind="feed-forward",
    )


def _no_output_bias(heads, key_dim) -> Term:
    return dense("output", heads * key_dim, d_e, bias=0,
                 note="o_proj: no bias, whatever attention_bias says")


_ATTENTION = {"query": "q_proj", "key": "k_proj", "value": "v_proj", "output": "o_proj"}
_ROTARY = ("transformers' MoonshineRotaryEmbedding computes its inverse frequencies into a "
           "non-persistent buffer (not saved, not a weight); KerasHub keeps them as a "
           "non-trainable weight")
_O_BIAS = ("transformers' MoonshineAttention builds o_proj without a bias even with "
           "attention_bias (only q, k, v follow it); KerasHub's output projection follows "
           "attention_bias as the others do")

# MoonshineForConditionalGeneration's names (proj_out is tied to embed_tokens).
TRANSFORMERS = Transformers(
    weights={
        "token_embedding": "decoder/embed_tokens",
        "encoder": "encoder",
        "encoder.front_end.conv_1": "conv1",
        "encoder.front_end.group_norm": "groupnorm",
        "encoder.front_end.conv_2": "conv2",
        "encoder.front_end.conv_3": "conv3",
        "encoder.blocks": r"layers/\d+",
        "encoder.blocks.norm_1": "input_layernorm",
        "encoder.blocks.self_attention": "self_attn",
        **{f"encoder.blocks.self_attention.{k}": p for k, p in _ATTENTION.items()},
        "encoder.blocks.norm_2": "post_attention_layernorm",
        "encoder.blocks.ffn": "mlp",
        "encoder.blocks.ffn.up": "fc1",
        "encoder.blocks.ffn.down": "fc2",
        "encoder.final_norm": "layer_norm",
        "decoder": "decoder",
        "decoder.blocks": r"layers/\d+",
        "decoder.blocks.norms": "input_layernorm|post_attention_layernorm|final_layernorm",
        "decoder.blocks.attentions": "self_attn|encoder_attn",
        **{f"decoder.blocks.attentions.{k}": p for k, p in _ATTENTION.items()},
        "decoder.blocks.ffn": "mlp",
        "decoder.blocks.ffn.up": "fc1",
        "decoder.blocks.ffn.down": "fc2",
        "decoder.final_norm": "norm",
        "head": "proj_out",
    },
    deltas=(
        Delta("encoder.rotary", None, _ROTARY),
        Delta("decoder.rotary", None, _ROTARY),
        Delta("encoder.blocks.self_attention.output", _no_output_bias(M, d_k), _O_BIAS),
        Delta("decoder.blocks.attentions.output", _no_output_bias(M_dec, d_k_dec), _O_BIAS),
    ),
    # MoonshineConfig's intermediate_size is any width, not a multiple of hidden_size: d_f is a
    # hyperparameter of its own there (and prove's values stay within torch's sizes: x_f·d_e²
    # weights in fc1 overflow int64 at x_f, d_e near 2^24)
    settable={d_f: "transformers' intermediate_size is any width (KerasHub's is x_f·d_e)"},
    restrictions=(
        Fixed(
            glu_enc,
            0,
            binds="transformers",
            why="MoonshineEncoderMLP never gates: fc1 is d_e → intermediate_size "
                "(encoder_hidden_act picks the activation only)",
        ),
        Fixed(
            glu_dec,
            1,
            binds="transformers",
            why="MoonshineDecoderMLP always gates: fc1 is d_e → 2·intermediate_size "
                "(decoder_hidden_act picks the gate's activation only)",
        ),
    ),
)

register(keras_hub_backbone(
    "moonshine",
    formula=group(
        "moonshine",
        embedding("token_embedding", v, match="token_embedding",
                  note="v × d_e decoder table, also the tied LM head"),
        group(
            "encoder",
            group(
                "front_end",
                # a forward of T source positions reads 384·T + 511 samples (the fewest the
                # convolutions turn into T): 6·T + 7 outputs of the first, 2·T + 1 of the
                # second, T of the third
                conv1d("conv_1", 1, d_e, kernel=127, bias=0, match="conv1",
                       note="convolution over the waveform, kernel 127, stride 64, no bias"
                       ).with_cost(flops=2 * B * (6 * T + 7) * 127 * d_e),
                leaf("group_norm", 2 * d_e, match="group_norm", kind="norm",
                     note="group norm with one group: scale and shift"),
                conv1d("conv_2", d_e, 2 * d_e, kernel=7, match="conv2",
                       note="convolution, kernel 7, stride 3"
                       ).with_cost(flops=2 * B * (2 * T + 1) * 7 * d_e * 2 * d_e),
                conv1d("conv_3", 2 * d_e, d_e, kernel=3, match="conv3",
                       note="convolution, kernel 3, stride 2"
                       ).with_cost(flops=2 * B * T * 3 * 2 * d_e * d_e),
            ),
            leaf("rotary", f_rot, match="encoder_rotary_embedding", trainable=False, kind="position",
                 note="rotary inverse frequencies, a non-trainable weight"),
            without_cache(group(  # attending both ways: no cache
                "blocks",
                layer_norm("norm_1", beta=0, match="self_attention_layer_norm"),
                attention("self_attention", match="self_attention_layer", key_dim=d_k,
                          value_dim=d_k, bias=zeta),
                layer_norm("norm_2", beta=0, match="feedforward_layer_norm"),
                _mlp(glu_enc, match="feedforward"),
                times=L_enc,
                match=r"encoder_block_\d+",
            )),
            layer_norm("final_norm", beta=0, match="encoder_final_layer_norm"),
        ),
        group(
            "decoder",
            leaf("rotary", f_rot_dec, match="decoder_rotary_embedding", trainable=False,
                 kind="position",
                 note="rotary inverse frequencies, a non-trainable weight"),
            group(
                "blocks",
                repeat(layer_norm("norms", beta=0, match=r"layer_normalization(?:_\d+)?"), 3),
                group(
                    "attentions",
                    *attention("attention", match=None, heads=M_dec, key_dim=d_k_dec,
                               value_dim=d_k_dec, bias=zeta).children,
                    times=2,
                    match=r"moonshine_multi_head_attention(?:_\d+)?",
                    kind="attention",  # self and cross alike: one term, times 2
                    note="self-attention (causal, rotary) and cross-attention over the encoder "
                         "output: the same projections, unnamed in KerasHub",
                ),
                _mlp(glu_dec, match=r"moonshine_mlp(?:_\d+)?"),
                times=L_dec,
                match=r"decoder_block_\d+",
            ),
            layer_norm("final_norm", beta=0, match="decoder_post_norm"),
        ),
        zero("head", "tied: the output projection is the token table, transposed", kind="head",
             macs=d_e * v),
    ),
    reference="reference_models.moonshine:backbone",
    required=(v, d_e, M, L_enc),
    optional={L_dec: L_enc, M_dec: M, x_f: 4, zeta: 0, glu_enc: 0, glu_dec: 1,
              # KerasHub's default partial_rotary_factor 0.62 = 31/100 of each head's width,
              # in whole pairs: ⌊⌊0.62·d_k⌋ / 2⌋ = ⌊31·d_k / 100⌋
              f_rot: sympy.floor(31 * d_k / 100), f_rot_dec: sympy.floor(31 * d_k_dec / 100)},
    restrictions=(
        Fixed(d_k, d_e / M,
            why="KerasHub's Moonshine has no head-width argument: each encoder head is the width over the heads"),
        Fixed(d_k_dec, d_e / M_dec,
            why="KerasHub's Moonshine has no head-width argument: each decoder head is the width over the decoder "
                "heads"),
        Fixed(d_f, x_f * d_e, why="KerasHub's Moonshine sizes the feed-forward as a multiple x_f of the width"),
        Holds(Divisible(d_e, M), why="the encoder heads split the width exactly (d_k = d_e/M)"),
        Holds(Divisible(d_e, M_dec), why="the decoder heads split the width exactly (d_k_dec = d_e/M_dec)"),
    ),
    mapping=MAPPING,
    transformers=TRANSFORMERS,
))
