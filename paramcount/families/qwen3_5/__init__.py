"""Qwen 3.5 dense models (Qwen Team 2026) as KerasHub builds their text backbone: Qwen3_5Backbone
without a vision encoder.

Hybrid blocks: three in four mix tokens with gated DeltaNet linear attention (Yang et al. 2025,
"Gated Delta Networks"), the fourth with gated full attention (grouped-query, QK norm, a sigmoid
output gate produced by the query projection, partial RoPE); every block ends in a SwiGLU
feed-forward. RMS norms throughout, no biases. The LM head is kept in the backbone unless tied.
"""

from __future__ import annotations

import sympy

from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import v
from paramcount.families._decoders import LLAMA_FREE
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import FFN
from paramcount.families._lineages import GQA
from paramcount.families._lineages import KV_HEADS
from paramcount.families._lineages import LAYERS
from paramcount.families._lineages import QUERY_HEADS
from paramcount.families._lineages import QWEN3_5_NO_ATTENTION_BIAS
from paramcount.families._lineages import TIED_NO
from paramcount.families._lineages import VOCAB
from paramcount.families._lineages import WIDTH
from paramcount.model.components.llama_like import FULL_AND_LINEAR
from paramcount.model.components.llama_like import H_lk
from paramcount.model.components.llama_like import H_lv
from paramcount.model.components.llama_like import K_conv
from paramcount.model.components.llama_like import L_full
from paramcount.model.components.llama_like import backbone
from paramcount.model.components.llama_like import d_lk
from paramcount.model.components.llama_like import d_lv
from paramcount.model.components.llama_like import hybrid_blocks
from paramcount.model.components.llama_like import swiglu
from paramcount.model.components.llama_like import tied
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.mapping import Require
from paramcount.model.registry import register

IDS = ("qwen3_5",)  # the ids this folder registers


HYBRID_OPTIONAL = {L_full: sympy.floor(L / 4), tied: 0, H_lk: 16, H_lv: 32, d_lk: 128,
                   d_lv: 128, K_conv: 4}
# The hybrid stack's restriction rows, shared with Qwen 3.5 MoE and Qwen3-Next.
HYBRID_CONSTRAINTS = (GQA,
                      *Holds.each(FULL_AND_LINEAR.constraints()))
HYBRID_FIXED = Fixed.each(FULL_AND_LINEAR.fixed(),
                          why="the linear-attention blocks are those not full (L_linear = L − L_full)")

# The hybrid blocks' fields, shared with Qwen 3.5 MoE: symbol ↔ Qwen3_5Backbone argument ↔
# Qwen3_5TextConfig key. layer_types is a list of per-block kinds; L_full counts the full-
# attention ones. Absent keys take defaults both frameworks share with the formula (16, 32, 128,
# 128, 4 and every fourth block full), except transformers' head_dim of 256.
HYBRID_FIELDS = (
    VOCAB,
    LAYERS,
    QUERY_HEADS,
    KV_HEADS,
    Field("d_k", keras="head_dim", hf="head_dim", hf_default=256),
    WIDTH,
    Field("L_full", keras="layer_types", hf="layer_types",
          kinds=("full_attention", "linear_attention")),
    TIED_NO,
    Field("H_lk", keras="linear_num_key_heads", hf="linear_num_key_heads"),
    Field("H_lv", keras="linear_num_value_heads", hf="linear_num_value_heads"),
    Field("d_lk", keras="linear_key_head_dim", hf="linear_key_head_dim"),
    Field("d_lv", keras="linear_value_head_dim", hf="linear_value_head_dim"),
    Field("K_conv", keras="linear_conv_kernel_dim", hf="linear_conv_kernel_dim"),
)
HYBRID_REQUIRES = (
    Require("attention_bias", (False,), "KerasHub's Qwen 3.5 attention has no biases"),
    Require("full_attention_interval", (4,), "the blocks' kinds are read from layer_types, or "
            "every fourth block is full attention"),
    Require("vision_encoder", (None,), "only the text backbone is formulated (no vision "
            "encoder)", framework="keras"),
)
HYBRID_FREE = LLAMA_FREE | {
    "rope_scaling", "partial_rotary_factor", "mrope_section", "mrope_interleaved", "rope_scaling_factor",
    "sliding_window_size",
}

MAPPING = family_table(
    "qwen3_5", hf="Qwen3_5ForCausalLM", keras="Qwen3_5Backbone", model_type="qwen3_5_text",
    fields=(*HYBRID_FIELDS, FFN),
    restrictions=(
        QWEN3_5_NO_ATTENTION_BIAS,
        *Requires.each(HYBRID_REQUIRES),
    ),
    free=HYBRID_FREE,
)

# Qwen3_5ForCausalLM's names (the text model; Qwen3_5ForConditionalGeneration adds the vision
# encoder): gated attention in ``self_attn`` (q_proj 2·M·d_k wide: queries and their gate), gated
# DeltaNet in ``linear_attn``, a SwiGLU ``mlp``. The RMS norms hold one weight each (1 + w).
HYBRID_WEIGHTS = {
    "embeddings.token": "model/embed_tokens",
    "blocks": r"layers/\d+",
    "blocks.mixer_norm": "input_layernorm",
    "blocks.full_attention": "self_attn",
    "blocks.full_attention.query": "q_proj",
    "blocks.full_attention.key": "k_proj",
    "blocks.full_attention.value": "v_proj",
    "blocks.full_attention.output": "o_proj",
    "blocks.full_attention.query_norm": "q_norm",
    "blocks.full_attention.key_norm": "k_norm",
    "blocks.linear_attention": "linear_attn",
    "blocks.linear_attention.qkv": "in_proj_qkv",
    "blocks.linear_attention.conv": "conv1d",
    "blocks.linear_attention.z_gate": "in_proj_z",
    "blocks.linear_attention.beta": "in_proj_b",
    "blocks.linear_attention.decay": "in_proj_a",
    "blocks.linear_attention.A_log": "A_log",
    "blocks.linear_attention.dt_bias": "dt_bias",
    "blocks.linear_attention.norm": "norm",
    "blocks.linear_attention.output": "out_proj",
    "blocks.linear_attention.scan": "scan",  # its own products and states (no weight)
    "blocks.ffn_norm": "post_attention_layernorm",
    "final_norm": "model/norm",
    "head": "lm_head",
}
TRANSFORMERS = Transformers(weights={
    **HYBRID_WEIGHTS,
    "blocks.ffn": "mlp",
    "blocks.ffn.gate": "gate_proj",
    "blocks.ffn.up": "up_proj",
    "blocks.ffn.down": "down_proj",
})

register(keras_hub_backbone(
    "qwen3_5",
    formula=backbone("qwen3_5", hybrid_blocks(swiglu())),
    required=(v, d_e, M, M_kv, d_k, d_f, L),
    optional=HYBRID_OPTIONAL,
    restrictions=(
        *HYBRID_FIXED,
        *HYBRID_CONSTRAINTS,
    ),
    presets=None,  # KerasHub's Qwen 3.5 presets are vision-language models
    mapping=MAPPING,
    transformers=TRANSFORMERS,
))
