"""Phi-3.5-MoE (Microsoft 2024, "Phi-3 Technical Report", section on phi-3.5-MoE), as
transformers builds it: PhimoeForCausalLM. KerasHub has no Phi-3.5-MoE, so transformers is the
reference.

Pre-norm blocks with layer norms (γ and β), grouped-query attention whose four projections carry
biases (``attention_bias``, b_att), and E SwiGLU experts of width d_f with a bias-free router
(k per token, no shared expert). A final layer norm and an LM head with a bias
(``lm_head_bias``, b_head).
"""

from __future__ import annotations

from paramcount.core.formula import group, leaf
from paramcount.core.symbols import E, L, M, M_kv, b_att, b_head, d_e, d_f, tied, v
from paramcount.families._lineages import (
    HF_ATTENTION_BIAS,
    HF_FFN,
    HF_HEADS,
    HF_KV_HEADS,
    HF_LAYERS,
    HF_LOCAL_EXPERTS,
    HF_TIED_NO,
    HF_TOP_K,
    HF_VOCAB,
    HF_WIDTH,
    ROUTED_TO_AT_MOST_ALL,
    rotary_heads,
)
from paramcount.model.components.basic import dense, layer_norm
from paramcount.model.components.hf_decoder import attention, causal_lm
from paramcount.model.components.modern import k_act, mixture_of_experts
from paramcount.model.frameworks import Transformers, own_weights
from paramcount.model.mapping import Field, Table
from paramcount.model.registry import Architecture, register
from paramcount.model.weights import Named

IDS = ("phimoe",)  # the ids this folder registers


_EXPERT = group(
    "expert",
    leaf("gate_up", 2 * d_e * d_f, match="gate_up_proj", kind="feed-forward",
         note="gate and up projections stored as one 2·d_f × d_e tensor"),
    dense("down", d_f, d_e, bias=0, match="down_proj"),
    match="experts",
)
FORMULA = causal_lm(
    "phimoe",
    block=(layer_norm("attention_norm", match="input_layernorm"),
           attention(qkv_bias=b_att, o_bias=b_att),
           layer_norm("ffn_norm", match="post_attention_layernorm"),
           mixture_of_experts("moe", experts=E, top_k=k_act, expert=_EXPERT,
                              router=dense("router", d_e, E, bias=0, match="router"),
                              match="mlp")),
    final_norm=layer_norm("final_norm", match="model/norm"),
    head_bias=b_head,
    note="pre-norm blocks: attention, E experts with a router",
)

register(Architecture(
    id="phimoe",
    title="Phi-3.5-MoE (transformers PhimoeForCausalLM): E SwiGLU experts, layer norms, biases",
    source="Abdin et al. 2024 (Phi-3 Technical Report), phi-3.5-MoE; "
           "transformers/models/phimoe/modeling_phimoe.py",
    formula=FORMULA,
    required=(v, d_e, M, M_kv, d_f, L, E),
    optional={k_act: 2, tied: 0, b_att: 1, b_head: 1},
    restrictions=(
        *rotary_heads("PhimoeConfig"),
        ROUTED_TO_AT_MOST_ALL,
    ),
    reference=Named("reference_models.hf:weights", ("phimoe",)),
    counting="trainable parameters of the causal LM: token embedding, L blocks (router and E "
             "experts each), final layer norm, LM head weight (none when tied) and bias; active "
             "parameters count k of the E experts",
    presets="phimoe",
    family="transformers",
    mapping=Table(
        fields=(
            HF_VOCAB,
            HF_LAYERS,
            HF_HEADS,
            HF_KV_HEADS,
            HF_WIDTH,
            HF_FFN,
            HF_LOCAL_EXPERTS,
            HF_TOP_K,
            HF_ATTENTION_BIAS,
            Field("b_head", hf="lm_head_bias", flag=True, hf_default=0),
            HF_TIED_NO,
        ),
        model_type="phimoe",
        hf_classes={"PhimoeForCausalLM": "phimoe"},
        free=frozenset({
            "hidden_act", "max_position_embeddings", "rms_norm_eps", "rope_theta",
            "rope_scaling", "rope_parameters", "attention_dropout", "sliding_window",
            "output_router_logits", "router_aux_loss_coef", "router_jitter_noise",
            "input_jitter_noise", "original_max_position_embeddings",
        }),
    ),
    transformers=Transformers(weights=own_weights(FORMULA)),
    frameworks=("transformers",),
    examples={
        "tiny": dict(v=97, d_e=32, M=4, M_kv=2, d_f=12, L=2, E=6),
        "tiny_no_biases_tied": dict(v=31, d_e=24, M=6, M_kv=3, d_f=5, L=3, E=4, k=1, b_att=0,
                                    b_head=0, tied=1),
    },
))
