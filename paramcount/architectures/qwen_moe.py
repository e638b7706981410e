"""Qwen1.5-MoE (Qwen Team 2024, "Qwen1.5-MoE: Matching 7B Model Performance with 1/3 Activated
Parameters") as KerasHub builds it: QwenMoeBackbone.

Qwen 2's attention (q/k/v biases, no output bias) and, in every block, a mixture of E fine-grained
SwiGLU experts of width d_fe (top k per token) beside a shared SwiGLU expert of width d_fs that
every token uses, scaled by a sigmoid gate d_e → 1. KerasHub stores each expert's gate and up
projections as one (E, d_e, 2·d_fe) tensor.

KerasHub's ``decoder_sparse_step`` and ``mlp_only_layers`` would make some blocks dense, but the
backbone never passes a block its index, so either option turns every block alike; the published
model uses neither (step 1, no dense blocks), and so does this formula: every block is sparse and
``intermediate_dim`` (the dense width) holds no weight.
"""

from __future__ import annotations

from paramcount.components.basic import dense
from paramcount.components.llama_like import (
    backbone,
    d_fe,
    d_fs,
    decoder_blocks,
    gqa_attention,
    moe_swiglu,
    swiglu,
    tied,
)
from paramcount.components.modern import k_act
from paramcount.formula import group
from paramcount.architectures.qwen import TRANSFORMERS as QWEN_TRANSFORMERS
from paramcount.frameworks import Transformers
from paramcount.hparams import Divisible, Relation
from paramcount.mapping import Field, Require, Table
from paramcount.registry import Architecture, register
from paramcount.symbols import E, L, M, M_kv, d_e, d_k, v

SHARED = group(
    "shared",
    swiglu("expert", d_fs, match="shared_expert_dense"),
    dense("gate", d_e, 1, bias=0, match="shared_expert_gate_dense"),
)

# symbol ↔ QwenMoeBackbone argument ↔ Qwen2MoeConfig key. The dense width (intermediate_dim /
# intermediate_size) holds no weight while every block is sparse, and dense blocks
# (mlp_only_layers, decoder_sparse_step) are refused here: a heterogeneous stack is another
# formula.
_SPARSE_ONLY = "every block is a mixture of experts in this formula (dense blocks among them " \
               "are not formulated here)"
MAPPING = Table(
    fields=(
        Field("v", keras="vocabulary_size", hf="vocab_size"),
        Field("L", keras="num_layers", hf="num_hidden_layers"),
        Field("M", keras="num_query_heads", hf="num_attention_heads"),
        # no default: an absent key is not M in transformers (its dataclass default is fixed)
        Field("M_kv", keras="num_key_value_heads", hf="num_key_value_heads"),
        Field("d_e", keras="hidden_dim", hf="hidden_size"),
        Field("E", keras="num_experts", hf="num_experts"),
        Field("k", keras="top_k", hf="num_experts_per_tok"),
        Field("d_fe", keras="moe_intermediate_dim", hf="moe_intermediate_size"),
        Field("d_fs", keras="shared_expert_intermediate_dim", hf="shared_expert_intermediate_size"),
        # QwenMoeBackbone has no head_dim argument: d_k = d_e/M, which a config may only restate
        Field("d_k", hf="head_dim"),
        Field("tied", keras="tie_word_embeddings", hf="tie_word_embeddings", flag=True,
              hf_default=0, keras_default=0),
    ),
    model_type="qwen2_moe",
    hf_classes={"Qwen2MoeForCausalLM": "qwen_moe"},
    keras_classes={"QwenMoeBackbone": "qwen_moe"},
    hf_constants={"qkv_bias": True, "mlp_only_layers": [], "decoder_sparse_step": 1},
    requires=(
        Require("qkv_bias", (True,), "KerasHub's Qwen MoE query, key and value have biases"),
        Require("mlp_only_layers", ([],), _SPARSE_ONLY),
        Require("decoder_sparse_step", (1,), _SPARSE_ONLY),
        Require("mlp_only_layers", ([],), _SPARSE_ONLY, framework="keras"),
        Require("decoder_sparse_step", (1,), _SPARSE_ONLY, framework="keras"),
    ),
    free=frozenset({
        "intermediate_size", "intermediate_dim", "hidden_act", "max_position_embeddings",
        "rms_norm_eps", "rope_theta", "rope_scaling", "rope_parameters", "use_sliding_window",
        "sliding_window", "max_window_layers", "attention_dropout", "norm_topk_prob",
        "output_router_logits", "router_aux_loss_coef", "layer_types", "rope_max_wavelength",
        "rope_scaling_factor", "layer_norm_epsilon", "dropout", "norm_top_k_prob",
        "use_sliding_window_attention", "sliding_window_size", "router_aux_loss_coefficient",
    }),
)

# Qwen2MoeForCausalLM's names: Qwen 2's attention and norms; in ``mlp`` the router ``gate``, the
# routed experts as two stacked tensors (gate_up_proj: E × 2·d_fe × d_e, down_proj), the shared
# SwiGLU expert and its one-output gate.
TRANSFORMERS = Transformers(constraints=QWEN_TRANSFORMERS.constraints, weights={
    **{p: m for p, m in QWEN_TRANSFORMERS.weights.items()
       if p != "blocks.ffn" and not p.startswith("blocks.ffn.")},
    "blocks.moe": "mlp",
    "blocks.moe.router": "gate",
    "blocks.moe.experts": "experts",
    "blocks.moe.experts.expert": "experts",
    "blocks.moe.experts.expert.gate_up": "gate_up_proj",
    "blocks.moe.experts.expert.down": "down_proj",
    "blocks.moe.shared.expert": "shared_expert",
    "blocks.moe.shared.expert.gate": "gate_proj",
    "blocks.moe.shared.expert.up": "up_proj",
    "blocks.moe.shared.expert.down": "down_proj",
    "blocks.moe.shared.gate": "shared_expert_gate",
})

register(Architecture(
    id="qwen_moe",
    title="Qwen1.5-MoE backbone (keras_hub.models.QwenMoeBackbone): E experts + gated shared expert",
    source="Qwen Team 2024 (Qwen1.5-MoE blog and config); "
           "keras_hub/src/models/qwen_moe/qwen_moe_backbone.py",
    formula=backbone(
        "qwen_moe",
        decoder_blocks(
            moe_swiglu(block=r"qwen_sparse_moe_block(?:_\d+)?", inner=d_fe, fused_gate_up=True,
                       shared=SHARED),
            attention_term=gqa_attention(bias=(1, 1, 1, 0)),
        ),
    ),
    required=(v, d_e, M, M_kv, L, E, d_fe, d_fs),
    optional={k_act: 4, tied: 0},
    fixed={d_k: d_e / M},
    constraints=(Divisible(d_e, M), Divisible(M, M_kv),
                 Relation(k_act, "<=", E, reason="a token is routed to at most all experts")),
    reference="reference_models.qwen_moe:backbone",
    counting="trainable weights of the backbone: token embedding, L decoder blocks (router, E "
             "routed experts, shared expert and its gate), final RMS norm and the LM head "
             "KerasHub keeps in the backbone (none when tied); active parameters count k of the "
             "E routed experts and the shared expert",
    presets="qwen_moe",
    keras_hub_metadata=True,
    family="keras_hub",
    mapping=MAPPING,
    transformers=TRANSFORMERS,
    examples={
        "tiny": dict(v=97, d_e=32, M=8, M_kv=2, L=2, E=6, d_fe=12, d_fs=40),
        "tiny_odd_tied": dict(v=31, d_e=21, M=3, M_kv=1, L=3, E=5, d_fe=7, d_fs=11, k=2,
                              tied=1),
        "tiny_mha_untied": dict(v=13, d_e=8, M=2, M_kv=2, L=1, E=4, d_fe=3, d_fs=5, k=4,
                                tied=0),
    },
))
