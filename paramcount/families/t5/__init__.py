"""T5 (Raffel et al. 2020) as KerasHub builds it: T5Backbone, an encoder-decoder with L layers
on each side.

What sets it apart, each visible in the tree:

- no biases anywhere, and its layer norm is an RMS norm with a scale and no β (T5LayerNorm);
- no absolute positions: a relative position bias, an n_b × M table (n_b = 32 buckets), learned
  in the first self-attention layer of the encoder and of the decoder only and reused above;
- T5 v1.0 (``gated`` = 0) has a ReLU feed-forward of two matrices; v1.1 and FLAN-T5
  (``gated`` = 1) a GeGLU of three;
- v1.0 ties the output head to the token embedding (``tied`` = 1); v1.1 and FLAN-T5 learn a
  separate d_e × v head, which KerasHub keeps inside the backbone's ReversibleEmbedding.
- attention widths are M·d_k, with d_k (key_value_dim, 64 in every checkpoint) independent of
  d_e/M; d_v = d_k.
"""

from __future__ import annotations

import sympy

from paramcount.core.formula import Term
from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.formula import zero
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import d_v
from paramcount.core.symbols import v
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import VOCAB
from paramcount.families._lineages import WIDTH_D_MODEL
from paramcount.model.components.encoders import gated
from paramcount.model.components.encoders import n_b
from paramcount.model.components.encoders import relative_bias
from paramcount.model.components.encoders import t5_attention
from paramcount.model.components.encoders import t5_feed_forward
from paramcount.model.components.encoders import t5_norms
from paramcount.model.components.encoders import tied
from paramcount.model.cost import without_cache
from paramcount.model.frameworks import Delta
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("t5",)  # the ids this folder registers


_FFN = t5_feed_forward()


# The feed-forward's layers sit directly in the block (``transformer_encoder_layer_0/
# output_projector``); the attention's own output_projector sits one level further down.
def _in_block(c: Term) -> Term:
    assert c.match is not None  # t5_feed_forward gives each of its layers a match
    return leaf(c.name, c.expr, match=r"transformer_\w+_layer_\d+/" + c.match, note=c.note,
                **c.costs())


_FFN = group("ffn", *(_in_block(c) for c in _FFN.children), kind="feed-forward")

# symbol ↔ T5Backbone argument ↔ T5Config key. transformers decides gating by the name of
# feed_forward_proj ("gated-…" is gated); KerasHub's activation is free (it changes no count).
MAPPING = family_table(
    "t5", hf="T5ForConditionalGeneration", keras="T5Backbone",
    fields=(
        VOCAB,
        Field("L", keras="num_layers", hf="num_layers"),
        Field("L", hf="num_decoder_layers", hf_default=L),
        Field("M", keras="num_heads", hf="num_heads"),
        WIDTH_D_MODEL,
        Field("d_f", keras="intermediate_dim", hf="d_ff"),
        Field("d_k", keras="key_value_dim", hf="d_kv", keras_default=sympy.floor(d_e / M),
              hf_default=64),
        Field("gated", keras="use_gated_activation", hf="feed_forward_proj", flag=True,
              keras_default=1, hf_default=0,
              hf_values={"gated-gelu": 1, "relu": 0, "gated-relu": 1, "gated-silu": 1,
                         "gelu": 0, "silu": 0, "gelu_new": 0, "gated-gelu_new": 1}),
        # T5Config derives is_gated_act from feed_forward_proj unless the config gives it, and
        # the feed-forward is gated by it (issue 32): read, so two that disagree are refused
        Field("gated", hf="is_gated_act", flag=True),
        Field("tied", keras="tie_embedding_weights", hf="tie_word_embeddings", flag=True,
              keras_default=1, hf_default=1),
    ),
    restrictions=(
        Sets("relative_attention_num_buckets", 32,
            why="KerasHub's T5 attention always has 32 relative position buckets"),
        Sets("is_encoder_decoder", True, why="T5 is an encoder-decoder"),
        Requires(
            "relative_attention_num_buckets",
            (32,),
            why="the formula (and KerasHub) has n_b = 32 relative-position buckets",
        ),
    ),
)

_T5_STACK = {
    "self_attention": "SelfAttention",
    "self_attention.query": "q",
    "self_attention.key": "k",
    "self_attention.value": "v",
    "self_attention.output": "o",
    "cross_attention": "EncDecAttention",
    "cross_attention.query": "q",
    "cross_attention.key": "k",
    "cross_attention.value": "v",
    "cross_attention.output": "o",
    # KerasHub activates input_projector and multiplies by gate_projector; transformers
    # activates wi_0 and multiplies by wi_1 (wi when not gated)
    "ffn.up": "wi|wi_0",
    "ffn.gate": "wi_1",
    "ffn.down": "wo",
    "norms": "layer_norm",
}

register(keras_hub_backbone(
    "t5",
    formula=group(
        "t5",
        group(
            "embeddings",
            leaf("token", v * d_e, match="token_embedding/embeddings", kind="embedding",
                 note="one v × d_e table shared by encoder and decoder inputs"),
            zero("positions", "no absolute positions: relative position bias instead",
                 kind="position"),
        ),
        relative_bias(),
        without_cache(group(
            "encoder",
            t5_attention("self_attention", "self_attention"),
            _FFN,
            t5_norms(2),
            times=L,
            match=r"transformer_encoder_layer_\d+",
        )),
        leaf("encoder_final_norm", d_e, match="encoder_output_layer_norm", kind="norm",
             note="RMS norm, scale only"),
        group(
            "decoder",
            t5_attention("self_attention", "self_attention"),
            t5_attention("cross_attention", "cross_attention", kind="cross-attention"),
            _FFN,
            t5_norms(3),
            times=L,
            match=r"transformer_decoder_layer_\d+",
        ),
        leaf("decoder_final_norm", d_e, match="decoder_output_layer_norm", kind="norm",
             note="RMS norm, scale only"),
        leaf("head", (1 - tied) * d_e * v, match="token_embedding/reverse_embeddings", kind="head",
             note="untied output projection d_e × v (v1.1, FLAN-T5); zero when tied (v1.0), "
                  "where the head is the token embedding, transposed"),
    ),
    reference="reference_models.t5:backbone",
    required=(v, d_e, M, d_f, L),
    optional={d_k: sympy.floor(d_e / M), gated: 1, tied: 0},
    restrictions=(
        Fixed(d_v, d_k, why="KerasHub's T5 gives keys and values one head width (key_value_dim)"),
        Fixed(n_b, 32, why="KerasHub's T5 attention always has 32 relative position buckets"),
    ),
    mapping=MAPPING,
    transformers=Transformers(weights={
        "embeddings.token": "shared",
        "relative_position_bias": "relative_attention_bias",
        "encoder": r"encoder/block/\d+",
        **{f"encoder.{k}": p for k, p in _T5_STACK.items() if not k.startswith("cross")},
        "encoder_final_norm": "encoder/final_layer_norm",
        "decoder": r"decoder/block/\d+",
        **{f"decoder.{k}": p for k, p in _T5_STACK.items()},
        "decoder_final_norm": "decoder/final_layer_norm",
        "head": "lm_head",
    }, deltas=(Delta(
        "head", zero("head", "transformers ties lm_head to the shared table whatever the config "
                             "says: T5Config forces tie_word_embeddings = True", kind="head",
                     macs=d_e * v),
        "transformers 5's T5Config forces tie_word_embeddings = True (a false value only turns "
        "off the decoder's output scaling), so T5ForConditionalGeneration never has a separate "
        "head; KerasHub keeps v1.1's untied d_e × v head"),)),
))
