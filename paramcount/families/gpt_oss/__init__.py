"""GPT-OSS (OpenAI 2025) as KerasHub builds it: keras_hub.models.GptOssBackbone.

Token embedding and an untied output projection (both in the backbone), L pre-norm blocks of
grouped-query attention with biases on all four projections, a free head width d_k
(64·64 = 4096 ≠ d_e = 2880) and one learned attention-sink logit per query head, then a
mixture-of-experts feed-forward: a router (dense with bias, d_e → E) and E SwiGLU experts whose
gate and up projections are fused (d_e → 2·d_f, with bias) before the down projection (with
bias). Each token uses the top k experts, so the active count per token has k experts where the
total has E. Alternate layers attend in a sliding window (no weights); RMS norms, scale only.
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.hparams import Relation
from paramcount.core.restrictions import Holds
from paramcount.core.symbols import E
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import v
from paramcount.families._decoders import LLAMA_FREE
from paramcount.families._decoders import sliding
from paramcount.families._decoders import untied_keras_ends
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import DECODER_FIELDS
from paramcount.families._lineages import EVEN_HEAD_DIM_VALIDATED
from paramcount.families._lineages import FFN
from paramcount.families._lineages import GQA
from paramcount.families._lineages import LOCAL_EXPERTS
from paramcount.families._lineages import pinned
from paramcount.model.components import dense
from paramcount.model.components.llama_like import embeddings
from paramcount.model.components.llama_like import hf_decoder_names
from paramcount.model.components.modern import k_act
from paramcount.model.components.modern import mixture_of_experts
from paramcount.model.components.modern import rms_norm
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("gpt_oss",)  # the ids this folder registers


_expert = group(
    "expert",
    leaf("gate_up", d_e * 2 * d_f + 2 * d_f, match="gate_up_proj|gate_up_proj_bias",
         note="gate and up projections fused: d_e → 2·d_f, with bias", macs=2 * d_e * d_f),
    leaf("down", d_f * d_e + d_e, match="down_proj|down_proj_bias",
         note="down projection d_f → d_e, with bias", macs=d_f * d_e),
    match="experts",
)

# symbol ↔ GptOssBackbone argument ↔ GptOssConfig key. GptOssConfig's head_dim is 64 when
# absent (d_e/M only when null), so it is read, never defaulted, from a transformers config;
# KerasHub's head_dim=None is d_e/M.
MAPPING = family_table(
    "gpt_oss", hf="GptOssForCausalLM", keras="GptOssBackbone",
    fields=(
        *DECODER_FIELDS,
        FFN,
        Field("d_k", keras="head_dim", hf="head_dim", keras_default=d_e / M),
        LOCAL_EXPERTS,
        Field("k", keras="top_k", hf="num_experts_per_tok", keras_default=2),
    ),
    restrictions=pinned(
        ("tie_word_embeddings", False, "gpt-oss's LM head is a matrix of its own (untied)",
         "KerasHub's GptOssBackbone always keeps an untied LM head"),
        ("attention_bias", True, "gpt-oss has biases on all four attention projections",
         "KerasHub's GPT-OSS attention always has biases on all four projections"),
    ),
    free=LLAMA_FREE | {
        "rope_scaling", "sliding_window", "layer_types", "output_router_logits", "router_aux_loss_coef", "swiglu_alpha",
        "swiglu_limit", "experts_per_token", "initial_context_length", "rope_scaling_factor",
    },
)

# GptOssForCausalLM names the experts' fused tensors as KerasHub does (gate_up_proj, its bias,
# down_proj, its bias: E-stacked); the router is ``mlp.router`` (weight and bias).
TRANSFORMERS = Transformers(restrictions=(
    EVEN_HEAD_DIM_VALIDATED,
), weights={
    **hf_decoder_names(ffn=False),
    "blocks.attention.sinks": "sinks",
    "blocks.moe": "mlp",
    "blocks.moe.router": "router",
    "blocks.moe.experts": "experts",
    "blocks.moe.experts.expert.gate_up": "gate_up_proj|gate_up_proj_bias",
    "blocks.moe.experts.expert.down": "down_proj|down_proj_bias",
    "head": "lm_head",
}, **sliding(2, 128))  # every other layer in a window of 128

register(keras_hub_backbone(
    "gpt_oss",
    formula=group(
        "gpt_oss",
        embeddings(),
        group(
            "blocks",
            rms_norm("norm_1", match="input_layernorm"),
            group(
                "attention",
                dense("query", d_e, M * d_k, match="query"),
                dense("key", d_e, M_kv * d_k, match="key"),
                dense("value", d_e, M_kv * d_k, match="value"),
                dense("output", M * d_k, d_e, match="attention_output"),
                leaf("sinks", M, match="sinks",
                     note="one learned attention-sink logit per query head", macs=0),
                match="self_attention",
                kind="attention",
            ),
            rms_norm("norm_2", match="post_attention_layernorm"),
            mixture_of_experts(
                "moe",
                expert=_expert,
                router=dense("router", d_e, E, match="router_dense"),
                match="sparse_moe_block",
            ),
            times=L,
            match=r"transformer_layer_\d+",
        ),
        *untied_keras_ends(),
    ),
    required=(v, d_e, M, M_kv, d_k, d_f, E, k_act, L),
    restrictions=(
        GQA,
        Holds(Relation(k_act, "<=", E, reason="a token is routed to at most all E experts")),
    ),
    reference="reference_models.gpt_oss:backbone",
    mapping=MAPPING,
    transformers=TRANSFORMERS,
))
