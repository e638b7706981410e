"""OLMo 2 (Team OLMo 2024, "2 OLMo 2 Furious") and OLMoE (Muennighoff et al. 2024, "OLMoE: Open
Mixture-of-Experts Language Models"), as transformers builds them: Olmo2ForCausalLM and
OlmoeForCausalLM. KerasHub has neither, so transformers is the reference.

OLMo 2's block puts its RMS norms *after* attention and after the SwiGLU feed-forward (inside the
residual: ``post_attention_layernorm``, ``post_feedforward_layernorm``, no input norm), and
normalises queries and keys over all heads at once (``q_norm`` M·d_k wide, ``k_norm`` M_kv·d_k).
OLMoE is pre-norm with the same all-heads QK norm and, in place of the feed-forward, E SwiGLU
experts of width d_fe with a bias-free router (k per token, no shared expert).
"""

from __future__ import annotations

from paramcount.core.formula import group, leaf
from paramcount.core.restrictions import Requires, Sets
from paramcount.core.symbols import E, L, M, M_kv, d_e, d_f, d_fe, tied, v
from paramcount.families._lineages import (
    HF_EXPERT_FFN_AS_FFN,
    HF_EXPERTS,
    HF_FFN,
    HF_HEAD_DIM,
    HF_HEADS,
    HF_KV_HEADS_OR_M,
    HF_LAYERS,
    HF_TIED_NO,
    HF_TOP_K,
    HF_VOCAB,
    HF_WIDTH,
    ROUTED_TO_AT_MOST_ALL,
    rotary_heads,
)
from paramcount.model.components.basic import dense
from paramcount.model.components.hf_decoder import attention, causal_lm, qk_norms
from paramcount.model.components.latent import swiglu_hf
from paramcount.model.components.modern import k_act, mixture_of_experts, rms_norm
from paramcount.model.frameworks import Transformers, own_weights
from paramcount.model.mapping import Field, Require, Table
from paramcount.model.registry import Architecture, register
from paramcount.model.weights import Named

IDS = ("olmo2", "olmoe")  # the ids this folder registers


_FREE = frozenset({
    "hidden_act", "max_position_embeddings", "rms_norm_eps", "rope_theta", "rope_scaling",
    "rope_parameters", "attention_dropout", "pretraining_tp", "clip_qkv", "output_router_logits",
    "router_aux_loss_coef", "norm_topk_prob",
})
_NO_BIAS = Require("attention_bias", (False,), "OLMo's attention projections have no biases")


def _fields(*more: Field) -> tuple[Field, ...]:
    return (
        HF_VOCAB,
        HF_LAYERS,
        HF_HEADS,
        HF_KV_HEADS_OR_M,
        HF_WIDTH,
        HF_TIED_NO,
        *more,
    )


OLMO2 = causal_lm(
    "olmo2",
    block=(attention(norms=qk_norms("full")),
           rms_norm("post_attention_norm", match="post_attention_layernorm"),
           swiglu_hf("ffn", d_f, match="mlp"),
           rms_norm("post_ffn_norm", match="post_feedforward_layernorm")),
    final_norm=rms_norm("final_norm", match="model/norm"),
    note="post-norm blocks: attention (QK norm over all heads), RMS norm, SwiGLU, RMS norm",
)

register(Architecture(
    id="olmo2",
    title="OLMo 2 (transformers Olmo2ForCausalLM): post-norm blocks, all-heads QK norm, SwiGLU",
    source="Team OLMo 2024 (2 OLMo 2 Furious), section 2 and table 1; "
           "transformers/models/olmo2/modeling_olmo2.py",
    formula=OLMO2,
    required=(v, d_e, M, M_kv, d_f, L),
    optional={tied: 0},
    restrictions=(
        *rotary_heads("Olmo2Config"),
    ),
    reference=Named("reference_models.hf:weights", ("olmo2",)),
    counting="trainable parameters of the causal LM: token embedding, L post-norm blocks, final "
             "RMS norm, LM head (none when tied)",
    presets="olmo2",
    family="transformers",
    mapping=Table(fields=_fields(HF_FFN, HF_HEAD_DIM),
                  model_type="olmo2", hf_classes={"Olmo2ForCausalLM": "olmo2"},
                  restrictions=(
                      Sets("attention_bias", False, why="OLMo's attention projections have no biases"),
                      *Requires.each((_NO_BIAS,)),
                  ), free=_FREE),
    transformers=Transformers(weights=own_weights(OLMO2)),
    frameworks=("transformers",),
    examples={
        "tiny": dict(v=97, d_e=32, M=4, M_kv=4, d_f=48, L=2),
        "tiny_gqa_tied": dict(v=31, d_e=24, M=6, M_kv=2, d_f=20, L=3, tied=1),
    },
))

_EXPERT = group(
    "expert",
    leaf("gate_up", 2 * d_e * d_fe, match="gate_up_proj", kind="feed-forward",
         note="gate and up projections stored as one 2·d_fe × d_e tensor"),
    dense("down", d_fe, d_e, bias=0, match="down_proj"),
    match="experts",
)
OLMOE = causal_lm(
    "olmoe",
    block=(rms_norm("attention_norm", match="input_layernorm"),
           attention(norms=qk_norms("full")),
           rms_norm("ffn_norm", match="post_attention_layernorm"),
           mixture_of_experts("moe", experts=E, top_k=k_act, expert=_EXPERT,
                              router=dense("router", d_e, E, bias=0, match="gate"),
                              match="mlp")),
    final_norm=rms_norm("final_norm", match="model/norm"),
    note="pre-norm blocks: attention (QK norm over all heads), E experts with a router",
)

register(Architecture(
    id="olmoe",
    title="OLMoE (transformers OlmoeForCausalLM): E fine-grained SwiGLU experts, all-heads QK norm",
    source="Muennighoff et al. 2024 (OLMoE), table 1; "
           "transformers/models/olmoe/modeling_olmoe.py",
    formula=OLMOE,
    required=(v, d_e, M, M_kv, d_fe, L, E),
    optional={k_act: 8, tied: 0},
    restrictions=(
        *rotary_heads("OlmoeConfig"),
        ROUTED_TO_AT_MOST_ALL,
    ),
    reference=Named("reference_models.hf:weights", ("olmoe",)),
    counting="trainable parameters of the causal LM: token embedding, L blocks (router and E "
             "experts each), final RMS norm, LM head (none when tied); active parameters count k "
             "of the E experts",
    presets="olmoe",
    family="transformers",
    mapping=Table(fields=_fields(HF_EXPERT_FFN_AS_FFN,
                                 HF_EXPERTS, HF_TOP_K),
                  model_type="olmoe", hf_classes={"OlmoeForCausalLM": "olmoe"},
                  restrictions=(
                      Sets("attention_bias", False, why="OLMo's attention projections have no biases"),
                      *Requires.each((_NO_BIAS,)),
                  ), free=_FREE),
    transformers=Transformers(weights=own_weights(OLMOE)),
    frameworks=("transformers",),
    examples={
        "tiny": dict(v=97, d_e=32, M=4, M_kv=4, d_fe=12, L=2, E=6, k=2),
        "tiny_gqa_tied": dict(v=31, d_e=24, M=6, M_kv=3, d_fe=5, L=3, E=4, k=4, tied=1),
    },
))
