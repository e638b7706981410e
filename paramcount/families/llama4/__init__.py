"""Llama 4's language model (Meta 2025, "The Llama 4 herd"), as transformers builds it:
Llama4ForCausalLM (model_type ``llama4_text``). KerasHub has no Llama 4, so transformers is the
reference (as for Falcon-7B/40B and DeepSeek).

L pre-norm blocks of grouped-query attention (M query and M_kv key/value heads of width d_k, no
biases) and a feed-forward. The feed-forward is a mixture of experts in L_moe blocks (every
``interleave_moe_layer_step``-th: all of Scout's 48, half of Maverick's): a bias-free router
d_e → E, E routed SwiGLU experts of width d_fe (k per token, stacked as ``gate_up_proj`` and
``down_proj``) and one shared SwiGLU expert of width d_fe beside them that every token uses; a
dense SwiGLU of width d_f (``intermediate_size_mlp``) in the other L_dense blocks.

Two mechanisms cost nothing, kept as zero terms so the breakdown says so: every fourth block
(``no_rope_layer_interval``) attends without rotary positions (NoPE), and the others L2-normalise
queries and keys (``use_qk_norm``) with no learned scale. Token embedding, final RMS norm and an
untied LM head.
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.formula import zero
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import E
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import T
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_fe
from paramcount.core.symbols import d_k
from paramcount.core.symbols import tied
from paramcount.core.symbols import v
from paramcount.families._decoders import RMS_CAUSAL_LM_FREE
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._defaults import family_table
from paramcount.families._lineages import EVEN_HEAD_DIM
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HF_EXPERT_FFN_AS_FFN
from paramcount.families._lineages import HF_HEAD_DIM_DECODER_FIELDS
from paramcount.families._lineages import HF_LOCAL_ROUTING
from paramcount.families._lineages import HF_TIED_NO
from paramcount.families._lineages import ROUTED_TO_AT_MOST_ALL
from paramcount.model.components.basic import dense
from paramcount.model.components.hf_decoder import lm_head
from paramcount.model.components.hf_decoder import routed_experts
from paramcount.model.components.latent import swiglu_hf
from paramcount.model.components.llama_like import embeddings
from paramcount.model.components.modern import k_act
from paramcount.model.components.modern import rms_norm
from paramcount.model.components.stacks import INTERLEAVED_MOE
from paramcount.model.components.stacks import L_moe
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("llama4_text",)  # the ids this folder registers


_attention = group(
    "attention",
    dense("query", d_e, M * d_k, bias=0, match="q_proj"),
    dense("key", d_e, M_kv * d_k, bias=0, match="k_proj"),
    dense("value", d_e, M_kv * d_k, bias=0, match="v_proj"),
    dense("output", M * d_k, d_e, bias=0, match="o_proj"),
    zero("qk_norm", "L2 normalisation of queries and keys in the RoPE blocks (use_qk_norm): no "
                    "learned scale", kind="norm"),
    zero("nope", "every no_rope_layer_interval-th block attends without rotary positions "
                 "(NoPE): the same weights, no rotation", kind="position"),
    match="self_attn",
    kind="attention",
)

# transformers' Llama4TextExperts runs every token through all E experts (one bmm over the
# stack; the router's scores zero the unchosen): of the k experts a token is counted through,
# each computes for T·E/k positions per sequence, E·T in all.
_EVERY = T * E / k_act
_expert = group(
    "expert",
    leaf("gate_up", 2 * d_e * d_fe, match="gate_up_proj", kind="feed-forward",
         note="gate and up projections stored as one d_e × 2·d_fe tensor", macs=2 * d_e * d_fe,
         tokens=_EVERY),
    dense("down", d_fe, d_e, bias=0, match="down_proj").with_cost(tokens=_EVERY),
    match="experts",
)
_moe = routed_experts(_expert, match="feed_forward", shared=swiglu_hf("shared", d_fe, match="shared_expert"))

FORMULA = group(
    "llama4_text",
    embeddings("model/embed_tokens"),
    INTERLEAVED_MOE.stack(
        "blocks",
        common=(rms_norm("attention_norm", match="input_layernorm"), _attention,
                rms_norm("ffn_norm", match="post_attention_layernorm")),
        per_kind={"moe": (_moe,),
                  "dense": (swiglu_hf("dense_ffn", d_f,
                                      match=r"feed_forward(?=/(?:gate|up|down)_proj)"),)},
        match=r"model/layers/\d+",
        note="L blocks: attention in each; routed + shared experts in L_moe of them, a dense "
             "SwiGLU in the other L_dense",
    ),
    rms_norm("final_norm", match="model/norm"),
    lm_head(),
)


def _moe_layers(hp):
    """Which blocks are sparse, as transformers takes it: the last L_moe (which ones changes no
    count)."""
    return list(range(hp["L"] - hp["L_moe"], hp["L"]))


# symbol ↔ Llama4TextConfig key (no KerasHub argument: KerasHub cannot build it). L_moe is read
# by the rule Llama4TextConfig applies (moe_layers, else every interleave_moe_layer_step-th).
MAPPING = family_table(
    "llama4_text", hf="Llama4ForCausalLM",
    fields=(
        *HF_HEAD_DIM_DECODER_FIELDS,
        HF_EXPERT_FFN_AS_FFN,
        Field("d_f", hf="intermediate_size_mlp"),
        *HF_LOCAL_ROUTING,
        HF_TIED_NO,
        Field("L_moe", stack=INTERLEAVED_MOE, options={
            "interleave_moe_layer_step": "interleave_moe_layer_step",
            "moe_layers": "moe_layers"}),
    ),
    restrictions=(
        Sets("attention_bias", False, why="Llama 4's attention projections have no biases"),
        Sets("interleave_moe_layer_step", 1,
            why="moe_layers lists the sparse blocks itself; the step is written as 1 beside it"),
        Sets("moe_layers", _moe_layers,
            why="Llama4TextConfig takes the sparse blocks as a list: the last L_moe (which ones changes no count)"),
        Requires("attention_bias", (False,), why="Llama 4's attention has no biases"),
    ),
    free=RMS_CAUSAL_LM_FREE | {
        "output_router_logits", "router_aux_loss_coef", "router_jitter_noise", "no_rope_layers",
        "no_rope_layer_interval", "use_qk_norm", "attention_chunk_size", "layer_types", "attn_temperature_tuning",
        "floor_scale", "attn_scale", "for_llm_compressor", "cache_implementation", "pretraining_tp",
    },
)

register(hf_causal_lm(
    "llama4_text",
    formula=FORMULA,
    required=(v, d_e, M, M_kv, d_k, d_f, d_fe, L, E),
    optional={k_act: 1, tied: 0, L_moe: L},
    restrictions=(
        *Fixed.each(INTERLEAVED_MOE.fixed(), why="the dense blocks are those not sparse (L_dense = L − L_moe)"),
        EVEN_HEAD_DIM,
        GQA,
        ROUTED_TO_AT_MOST_ALL,
        *Holds.each(INTERLEAVED_MOE.constraints()),
    ),
    mapping=MAPPING,
))
