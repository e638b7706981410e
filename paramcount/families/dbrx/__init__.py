"""DBRX (Databricks 2024, "Introducing DBRX": 132B total, 36B active), as transformers builds it:
DbrxForCausalLM. KerasHub has no DBRX, so transformers is the reference.

Pre-norm blocks with γ-only layer norms (``norm_1``, ``norm_2``: LayerNorm without a bias);
grouped-query attention (M query heads, M_kv key/value heads of width d_k = d_e/M) whose q, k
and v projections are one fused, bias-free ``Wqkv`` (rows d_e, then M_kv·d_k twice: the leaves
share it) and a bias-free ``out_proj``; ``clip_qkv`` clamps activations (no weight). The
feed-forward is a mixture of E fine-grained SwiGLU experts of width d_fe, k per token, with a
bias-free router (``router.layer``); transformers stacks each expert projection of all E experts
in one E·d_fe × d_e tensor (``w1`` gate, ``v1`` up, ``w2`` down, the last used transposed). A
γ-only final norm and an LM head that DbrxConfig refuses to tie.
"""

from __future__ import annotations

import dataclasses

from paramcount.core.formula import FUSED
from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import E
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_fe
from paramcount.core.symbols import d_k
from paramcount.core.symbols import tied
from paramcount.core.symbols import v
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._defaults import family_table
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HF_VOCAB
from paramcount.families._lineages import ROTARY_PAIRS
from paramcount.families._lineages import ROUTED_TO_AT_MOST_ALL
from paramcount.families._lineages import split_heads
from paramcount.model.components.basic import dense
from paramcount.model.components.basic import layer_norm
from paramcount.model.components.hf_decoder import causal_lm
from paramcount.model.components.hf_decoder import routed_experts
from paramcount.model.components.modern import k_act
from paramcount.model.frameworks import Transformers
from paramcount.model.frameworks import own_weights
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("dbrx",)  # the ids this folder registers


def _fused(term):
    return dataclasses.replace(term, part=FUSED)


_ATTENTION = group(
    "attention",
    _fused(dense("query", d_e, M * d_k, bias=0, match="Wqkv")),
    _fused(dense("key", d_e, M_kv * d_k, bias=0, match="Wqkv")),
    _fused(dense("value", d_e, M_kv * d_k, bias=0, match="Wqkv")),
    dense("output", M * d_k, d_e, bias=0, match="out_proj"),
    match="norm_attn_norm/attn",
    kind="attention",
)
_EXPERT = group(
    "expert",
    leaf("gate", d_e * d_fe, match="w1", kind="feed-forward",
         note="gate projection: E of them stacked as one E·d_fe × d_e tensor", macs=d_e * d_fe),
    leaf("up", d_e * d_fe, match="v1", kind="feed-forward",
         note="up projection: E of them stacked as one E·d_fe × d_e tensor", macs=d_e * d_fe),
    leaf("down", d_fe * d_e, match="w2", kind="feed-forward",
         note="down projection, stored transposed: E of them as one E·d_fe × d_e tensor",
         macs=d_fe * d_e),
    match="experts/mlp",
)

FORMULA = causal_lm(
    "dbrx",
    block=(layer_norm("attention_norm", beta=0, match="norm_attn_norm/norm_1"),
           _ATTENTION,
           layer_norm("ffn_norm", beta=0, match="norm_attn_norm/norm_2"),
           routed_experts(_EXPERT, router="router/layer", match="ffn")),
    final_norm=layer_norm("final_norm", beta=0, match="transformer/norm_f"),
    embed="transformer/wte",
    layers=r"transformer/blocks/\d+",
    note="pre-norm blocks: fused-QKV attention, E experts with a router",
)

_TIED = "DbrxConfig refuses tie_word_embeddings: DBRX's LM head is its own"

register(hf_causal_lm(
    "dbrx",
    formula=FORMULA,
    required=(v, d_e, M, M_kv, d_fe, L, E),
    optional={k_act: 4},
    restrictions=(
        split_heads("DbrxConfig", "d_model", "n_heads"),
        Fixed(tied, 0, why="DbrxConfig refuses to tie the LM head (tie_word_embeddings must be False)"),
        ROTARY_PAIRS,
        GQA,
        ROUTED_TO_AT_MOST_ALL,
    ),  # DbrxConfig refuses a tied head
    mapping=family_table(
        "dbrx", hf="DbrxForCausalLM",
        fields=(
            HF_VOCAB,
            Field("L", hf="n_layers"),
            Field("M", hf="n_heads"),
            Field("M_kv", hf="attn_config.kv_n_heads"),
            Field("d_e", hf="d_model"),
            Field("d_fe", hf="ffn_config.ffn_hidden_size"),
            Field("E", hf="ffn_config.moe_num_experts"),
            Field("k", hf="ffn_config.moe_top_k"),
        ),
        restrictions=(
            Sets("tie_word_embeddings", False, why="DbrxConfig refuses a tied LM head"),
            Sets("attn_config.rope_theta", 500000,
                why="DbrxAttention reads attn_config.rope_theta and DbrxAttentionConfig declares no default (a "
                    "config without it fails to build); the released value, which holds no weight"),
            Requires("tie_word_embeddings", (False,), why=_TIED),
        ),
    ),
    # DbrxAttention clamps q, k and v with clamp(min=None, max=None) when clip_qkv is None, which
    # torch refuses: the cost measurement runs with a clip (it changes no weight, no product)
    # its experts run only in its own loop over the routed ones (no set_experts_implementation)
    transformers=Transformers(weights=own_weights(FORMULA), cost_config={"attn_config.clip_qkv": 8.0},
                              experts_on_meta=False),
))
