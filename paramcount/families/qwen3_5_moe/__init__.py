"""Qwen 3.5 mixture-of-experts models (Qwen Team 2026) as KerasHub builds their text backbone:
Qwen3_5MoeBackbone without a vision encoder.

Qwen 3.5's hybrid blocks (gated DeltaNet in three of four, gated full attention in the fourth)
with every feed-forward a mixture: E routed SwiGLU experts of width d_fe (top k per token; gate
and up stored as one (E, d_e, 2·d_fe) tensor), a bias-free router, and a shared SwiGLU expert of
width d_fs that every token uses, scaled by a sigmoid gate d_e → 1.
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.restrictions import Requires
from paramcount.core.symbols import E
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_k
from paramcount.core.symbols import v
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import QWEN3_5_NO_ATTENTION_BIAS
from paramcount.families._lineages import QWEN_MOE_FIELDS
from paramcount.families._lineages import QWEN_MOE_NAMES
from paramcount.families._lineages import QWEN_SHARED_EXPERT_NAMES
from paramcount.families._lineages import ROUTED_TO_AT_MOST_ALL
from paramcount.families.qwen3_5 import HYBRID_CONSTRAINTS
from paramcount.families.qwen3_5 import HYBRID_FIELDS
from paramcount.families.qwen3_5 import HYBRID_FIXED
from paramcount.families.qwen3_5 import HYBRID_FREE
from paramcount.families.qwen3_5 import HYBRID_OPTIONAL
from paramcount.families.qwen3_5 import HYBRID_REQUIRES
from paramcount.families.qwen3_5 import HYBRID_WEIGHTS
from paramcount.model.components.basic import dense
from paramcount.model.components.llama_like import backbone
from paramcount.model.components.llama_like import d_fe
from paramcount.model.components.llama_like import d_fs
from paramcount.model.components.llama_like import hybrid_blocks
from paramcount.model.components.llama_like import swiglu
from paramcount.model.components.modern import k_act
from paramcount.model.components.modern import mixture_of_experts
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("qwen3_5_moe",)  # the ids this folder registers


MOE = mixture_of_experts(
    "moe",
    expert=group(
        "expert",
        leaf("gate_up", 2 * d_e * d_fe, match="expert_feedforward_gate_dense",
             note="gate and up projections stored as one d_e × 2·d_fe tensor",
             d_in=d_e, d_out=2 * d_fe),
        dense("down", d_fe, d_e, bias=0, match="expert_feedforward_output_dense"),
        match="experts",
    ),
    router=dense("router", d_e, E, bias=0, match="router_gate"),
    shared=group(
        "shared",
        swiglu("expert", d_fs, match="shared_expert"),
        dense("gate", d_e, 1, bias=0, match="shared_expert_gate"),
    ),
    match="sparse_moe_block",
)

# Qwen 3.5's hybrid fields, with the mixture's: symbol ↔ Qwen3_5MoeBackbone argument ↔
# Qwen3_5MoeTextConfig key.
MAPPING = family_table(
    "qwen3_5_moe", hf="Qwen3_5MoeForCausalLM", keras="Qwen3_5MoeBackbone", model_type="qwen3_5_moe_text",
    fields=(
        *HYBRID_FIELDS,
        *QWEN_MOE_FIELDS,
        Field("d_fs", keras="shared_expert_intermediate_size",
              hf="shared_expert_intermediate_size"),
    ),
    restrictions=(
        QWEN3_5_NO_ATTENTION_BIAS,
        *Requires.each(HYBRID_REQUIRES),
    ),
    free=HYBRID_FREE | {"output_router_logits", "router_aux_loss_coef",
                        "router_aux_loss_coefficient", "norm_topk_prob"},
)


def hybrid_moe(arch_id: str) -> dict:
    """What a Qwen 3.5 hybrid mixture declares whichever framework builds it (Qwen 3.5 MoE in
    KerasHub, Qwen3-Next in transformers): its tree under ``arch_id``, its hyperparameters and
    restrictions."""
    return dict(formula=backbone(arch_id, hybrid_blocks(MOE)), required=(v, d_e, M, M_kv, d_k, L, E, k_act, d_fe, d_fs),
                optional=HYBRID_OPTIONAL, restrictions=(*HYBRID_FIXED, *HYBRID_CONSTRAINTS, ROUTED_TO_AT_MOST_ALL))


# a tiny Qwen 3.5 hybrid mixture, and one of odd sizes (tied, two full-attention layers)
HYBRID_MOE_EXAMPLES = {
    "tiny": dict(v=97, d_e=32, M=4, M_kv=2, d_k=8, L=5, E=6, k=2, d_fe=12, d_fs=20,
                 H_lk=2, H_lv=4, d_lk=4, d_lv=6, K_conv=4),
    "tiny_odd_tied": dict(v=31, d_e=21, M=3, M_kv=1, d_k=5, L=3, L_full=2, E=5, k=5,
                          d_fe=7, d_fs=11, H_lk=1, H_lv=3, d_lk=7, d_lv=2, K_conv=3, tied=1),
}


# Qwen3_5MoeForCausalLM's names: Qwen 3.5's hybrid blocks; in ``mlp`` the router ``gate``, the
# routed experts as two stacked tensors (gate_up_proj: E × 2·d_fe × d_e, down_proj), the shared
# SwiGLU expert and its one-output gate.
TRANSFORMERS = Transformers(weights={
    **HYBRID_WEIGHTS, **QWEN_MOE_NAMES, **QWEN_SHARED_EXPERT_NAMES,
})

register(keras_hub_backbone(
    "qwen3_5_moe",
    **hybrid_moe("qwen3_5_moe"),
    presets=None,
    mapping=MAPPING,
    transformers=TRANSFORMERS,
    examples=HYBRID_MOE_EXAMPLES,
))
