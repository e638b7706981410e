"""MiniMax-M2 (MiniMax 2025, "MiniMax-M2": 230B total, 10B activated), as transformers builds it:
MiniMaxM2ForCausalLM. KerasHub has no MiniMax model, so transformers is the reference.

Pre-norm blocks with RMS norms; grouped-query attention of M query and M_kv key/value heads of
width d_k (``head_dim``: d_k·M need not be d_e), bias-free, with RMS norms of queries and keys
over all heads at once (``q_norm`` M·d_k wide, ``k_norm`` M_kv·d_k, as OLMo 2's); rotary
positions on part of each head (``rotary_dim``, no weight). Every feed-forward is a mixture of E
SwiGLU experts of width d_fe, k per token, no shared expert, with a bias-free router and, beside
it, a per-expert score-correction bias used only to pick the top k (``e_score_correction_bias``:
a persistent buffer, not trained, counted apart). Untied LM head. The checkpoint's config also
describes multi-token-prediction modules (``use_mtp``, ``num_mtp_modules``), which
MiniMaxM2ForCausalLM does not build: not counted.
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.symbols import E
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_fe
from paramcount.core.symbols import d_k
from paramcount.core.symbols import tied
from paramcount.core.symbols import v
from paramcount.families._decoders import RMS_CAUSAL_LM_FREE
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._decoders import pre_norm_causal_lm
from paramcount.families._defaults import family_table
from paramcount.families._lineages import EVEN_HEAD_DIM
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HF_EXPERT_FFN_AS_FFN
from paramcount.families._lineages import HF_GQA_FIELDS
from paramcount.families._lineages import HF_HEAD_DIM_OR_SPLIT
from paramcount.families._lineages import HF_LOCAL_ROUTING
from paramcount.families._lineages import HF_TIED_NO
from paramcount.families._lineages import ROUTED_TO_AT_MOST_ALL
from paramcount.model.components.hf_decoder import attention
from paramcount.model.components.hf_decoder import qk_norms
from paramcount.model.components.hf_decoder import stacked_expert
from paramcount.model.components.modern import k_act
from paramcount.model.components.modern import mixture_of_experts
from paramcount.model.registry import register

IDS = ("minimax_m2",)  # the ids this folder registers


_ROUTER = group(
    "router",
    leaf("weight", E * d_e, match=r"gate/weight", kind="router",
         note="expert affinities d_e → E (sigmoid scores), no bias", d_in=d_e, d_out=E),
    leaf("score_bias", E, match="e_score_correction_bias", trainable=False, kind="router",
         note="per-expert score-correction bias for top-k selection (a buffer: set by the "
              "load-balancing rule, not trained)", macs=0),
    kind="router",
)

FORMULA = pre_norm_causal_lm(
    "minimax_m2", attention(key_dim=d_k, norms=qk_norms("full")),
    mixture_of_experts("moe", experts=E, top_k=k_act, expert=stacked_expert(d_fe), router=_ROUTER, match="mlp"),
    note="pre-norm blocks: attention (QK norm over all heads), E experts with a router")

register(hf_causal_lm(
    "minimax_m2",
    formula=FORMULA,
    required=(v, d_e, M, M_kv, d_k, d_fe, L, E),
    optional={k_act: 8, tied: 0},
    restrictions=(
        EVEN_HEAD_DIM,
        GQA,
        ROUTED_TO_AT_MOST_ALL,
    ),
    mapping=family_table(
        "minimax_m2", hf="MiniMaxM2ForCausalLM",
        fields=(
            *HF_GQA_FIELDS,
            # absent: d_e/M, as MiniMaxM2Attention takes it
            HF_HEAD_DIM_OR_SPLIT,
            HF_EXPERT_FFN_AS_FFN,
            *HF_LOCAL_ROUTING,
            HF_TIED_NO,
        ),
        # rotary_dim / partial_rotary_factor: the rotary share of d_k; use_qk_norm,
        # qk_norm_type ("per_layer"): transformers always builds the all-heads QK norms;
        # scoring_func, use_routing_bias: how the router scores (the buffer is always built);
        # use_mtp, num_mtp_modules, mtp_transformer_layers: MTP modules transformers does not
        # build (not counted)
        free=RMS_CAUSAL_LM_FREE | {
            "output_router_logits", "router_aux_loss_coef", "router_jitter_noise", "rotary_dim",
            "partial_rotary_factor", "use_qk_norm", "qk_norm_type", "scoring_func", "use_routing_bias", "use_mtp",
            "num_mtp_modules", "mtp_transformer_layers", "attn_type_list",
        },
    ),
))
