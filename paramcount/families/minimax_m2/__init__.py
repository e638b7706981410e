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

from paramcount.core.formula import group, leaf
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Holds
from paramcount.core.symbols import E, L, M, M_kv, d_e, d_fe, d_k, tied, v
from paramcount.families._lineages import (
    GQA,
    HF_EXPERT_FFN_AS_FFN,
    HF_HEAD_DIM_OR_SPLIT,
    HF_HEADS,
    HF_KV_HEADS,
    HF_LAYERS,
    HF_LOCAL_EXPERTS,
    HF_TIED_NO,
    HF_TOP_K,
    HF_VOCAB,
    HF_WIDTH,
    ROUTED_TO_AT_MOST_ALL,
)
from paramcount.model.components.hf_decoder import attention, causal_lm, qk_norms, stacked_expert
from paramcount.model.components.modern import k_act, mixture_of_experts, rms_norm
from paramcount.model.frameworks import Transformers, own_weights
from paramcount.model.mapping import Table
from paramcount.model.registry import Architecture, register
from paramcount.model.weights import Named

IDS = ("minimax_m2",)  # the ids this folder registers


_ROUTER = group(
    "router",
    leaf("weight", E * d_e, match=r"gate/weight", kind="router",
         note="expert affinities d_e → E (sigmoid scores), no bias"),
    leaf("score_bias", E, match="e_score_correction_bias", trainable=False, kind="router",
         note="per-expert score-correction bias for top-k selection (a buffer: set by the "
              "load-balancing rule, not trained)"),
    kind="router",
)

FORMULA = causal_lm(
    "minimax_m2",
    block=(rms_norm("attention_norm", match="input_layernorm"),
           attention(key_dim=d_k, norms=qk_norms("full")),
           rms_norm("ffn_norm", match="post_attention_layernorm"),
           mixture_of_experts("moe", experts=E, top_k=k_act, expert=stacked_expert(d_fe), router=_ROUTER,
                              match="mlp")),
    final_norm=rms_norm("final_norm", match="model/norm"),
    note="pre-norm blocks: attention (QK norm over all heads), E experts with a router",
)

register(Architecture(
    id="minimax_m2",
    title="MiniMax-M2 (transformers MiniMaxM2ForCausalLM): E fine-grained SwiGLU experts with a "
          "score-corrected router, all-heads QK norm",
    source="MiniMax 2025 (MiniMax-M2 model card: 230B total, 10B activated); "
           "transformers/models/minimax_m2/modeling_minimax_m2.py",
    formula=FORMULA,
    required=(v, d_e, M, M_kv, d_k, d_fe, L, E),
    optional={k_act: 8, tied: 0},
    restrictions=(
        Holds(Divisible(d_k, 2), why="transformers validates an even rotary width (only it builds MiniMax-M2)"),
        GQA,
        ROUTED_TO_AT_MOST_ALL,
    ),
    reference=Named("reference_models.hf:weights", ("minimax_m2",)),
    counting="trainable parameters of the causal LM: token embedding, L blocks (router and E "
             "experts each), final RMS norm, LM head (none when tied); the router's "
             "score-correction bias is a non-trainable buffer, counted apart; the MTP modules the "
             "config describes are not built by transformers and not counted; active parameters "
             "count k of the E experts",
    presets="minimax_m2",
    family="transformers",
    mapping=Table(
        fields=(
            HF_VOCAB,
            HF_LAYERS,
            HF_HEADS,
            HF_KV_HEADS,
            HF_WIDTH,
            # absent: d_e/M, as MiniMaxM2Attention takes it
            HF_HEAD_DIM_OR_SPLIT,
            HF_EXPERT_FFN_AS_FFN,
            HF_LOCAL_EXPERTS,
            HF_TOP_K,
            HF_TIED_NO,
        ),
        model_type="minimax_m2",
        hf_classes={"MiniMaxM2ForCausalLM": "minimax_m2"},
        # rotary_dim / partial_rotary_factor: the rotary share of d_k; use_qk_norm,
        # qk_norm_type ("per_layer"): transformers always builds the all-heads QK norms;
        # scoring_func, use_routing_bias: how the router scores (the buffer is always built);
        # use_mtp, num_mtp_modules, mtp_transformer_layers: MTP modules transformers does not
        # build (not counted)
        free=frozenset({
            "hidden_act", "max_position_embeddings", "rms_norm_eps", "rope_theta",
            "rope_scaling", "rope_parameters", "attention_dropout", "output_router_logits",
            "router_aux_loss_coef", "router_jitter_noise", "rotary_dim", "partial_rotary_factor",
            "use_qk_norm", "qk_norm_type", "scoring_func", "use_routing_bias", "use_mtp",
            "num_mtp_modules", "mtp_transformer_layers", "attn_type_list",
        }),
    ),
    transformers=Transformers(weights=own_weights(FORMULA)),
    frameworks=("transformers",),
    examples={
        "tiny": dict(v=97, d_e=32, M=4, M_kv=2, d_k=12, d_fe=12, L=2, E=6, k=2),
        "tiny_mha_tied": dict(v=31, d_e=24, M=3, M_kv=3, d_k=8, d_fe=5, L=3, E=4, k=4, tied=1),
    },
))
