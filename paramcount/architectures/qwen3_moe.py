"""Qwen 3 mixture-of-experts models (Qwen Team 2025, "Qwen3 Technical Report") as KerasHub builds
them: Qwen3MoeBackbone.

Qwen 3's attention (grouped-query, QK norm, no biases) and, in place of the dense feed-forward, E
fine-grained SwiGLU experts of width d_fe with a bias-free router; each token uses k of them and,
unlike Qwen1.5-MoE, there is no shared expert. KerasHub stores each expert's gate and up
projections as one (E, d_e, 2·d_fe) tensor. Blocks listed in ``mlp_only_layers`` keep a dense
SwiGLU of width d_f instead: L_moe of the L blocks are sparse (all of them in every published
model).
"""

from __future__ import annotations

import dataclasses

from paramcount.components.llama_like import (
    BLOCK,
    backbone,
    d_fe,
    gqa_attention,
    moe_swiglu,
    swiglu,
    tied,
)
from paramcount.components.modern import k_act, rms_norm
from paramcount.formula import group
from paramcount.hparams import Divisible, Relation
from paramcount.registry import Architecture, register
from paramcount.symbols import E, L, L_moe, M, M_kv, d_e, d_f, d_k, v


def _times(term, times):
    return dataclasses.replace(term, times=times)


BLOCKS = group(
    "blocks",
    _times(rms_norm("attention_norm", match="self_attention_layernorm"), L),
    _times(gqa_attention(qk_norm=True), L),
    _times(rms_norm("ffn_norm", match="feedforward_layernorm"), L),
    _times(moe_swiglu(block=r"qwen3_sparse_moe_block(?:_\d+)?", inner=d_fe, fused_gate_up=True),
           L_moe),
    _times(swiglu("dense_ffn", match=r"qwen3_moe_mlp(?:_\d+)?"), L - L_moe),
    match=BLOCK,
    note="L blocks: attention and norms in each, the experts in L_moe of them, a dense "
         "feed-forward in the rest",
)

register(Architecture(
    id="qwen3_moe",
    title="Qwen 3 MoE backbone (keras_hub.models.Qwen3MoeBackbone): QK norm, E experts, top-k",
    source="Qwen Team 2025 (Qwen3 Technical Report), table 2; "
           "keras_hub/src/models/qwen3_moe/qwen3_moe_backbone.py",
    formula=backbone("qwen3_moe", BLOCKS),
    required=(v, d_e, M, M_kv, d_f, L, E, d_fe),
    optional={d_k: d_e / M, k_act: 4, tied: 0, L_moe: L},
    constraints=(Divisible(M, M_kv),
                 Relation(k_act, "<=", E, reason="a token is routed to at most all experts"),
                 Relation(L_moe, "<=", L, reason="sparse blocks are some of the L blocks")),
    reference="reference_models.qwen3_moe:backbone",
    counting="trainable weights of the backbone: token embedding, L decoder blocks (router and "
             "E experts in each sparse block, a dense feed-forward in the others), final RMS "
             "norm and the LM head KerasHub keeps in the backbone (none when tied); active "
             "parameters count k of the E experts",
    presets="qwen3_moe",
    keras_hub_metadata=True,
    family="keras_hub",
    examples={
        "tiny": dict(v=97, d_e=32, M=8, M_kv=2, d_k=4, d_f=48, L=2, E=6, d_fe=12),
        "tiny_dense_blocks_tied": dict(v=31, d_e=21, M=3, M_kv=1, d_k=10, d_f=13, L=3, E=5,
                                       d_fe=7, k=2, tied=1, L_moe=1),
        "tiny_default_heads": dict(v=13, d_e=8, M=2, M_kv=2, d_f=6, L=2, E=4, d_fe=3, k=4,
                                   tied=0, L_moe=2),
    },
))
