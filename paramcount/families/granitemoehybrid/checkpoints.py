"""Granite 4.0-H's checkpoints: GGUF ``granitehybrid``: Granite MoE's experts and a shared MLP
beside Mamba-2 mixers, each block's kind read from its tensors."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from paramcount.model.checkpoint_tables import SPARSE_MOE_EXPERTS
from paramcount.model.checkpoint_tables import SPARSE_MOE_ROUTER
from paramcount.model.checkpoint_tables import GGUFTable

# the Mamba heads as llama.cpp writes them (time_step_rank), the key/value heads per block (0 in
# a Mamba block)
_CONFIG = MappingProxyType({
    "embedding_length": "hidden_size", "block_count": "num_hidden_layers",
    "attention.head_count": "num_attention_heads", "feed_forward_length": "intermediate_size",
    "expert_count": "num_local_experts", "expert_used_count": "num_experts_per_tok",
    "expert_shared_feed_forward_length": "shared_intermediate_size",
    "ssm.conv_kernel": "mamba_d_conv", "ssm.state_size": "mamba_d_state",
    "ssm.group_count": "mamba_n_groups", "ssm.time_step_rank": "mamba_n_heads"})
# the mixer's dt_bias (gguf's map takes it for dt_proj.bias: ssm_dt.bias)
_DT_BIAS = ((r"^blk\.(\d+)\.ssm_dt\.bias$", r"model.layers.\1.mamba.dt_bias"),)
# the shared MLP (input_linear: gate and up along axis 0), which llama.cpp stores as
# ffn_*_shexp beside experts and as ffn_* in a dense model
_SHARED_MLP = tuple((f"ffn_gate{s}.weight", f"ffn_up{s}.weight",
                     "model.layers.{bid}.shared_mlp.input_linear.weight", 0) for s in ("_shexp", ""))
_SHARED_MLP_DENSE = ((r"^blk\.(\d+)\.ffn_down\.weight$",
                      r"model.layers.\1.shared_mlp.output_linear.weight"),)


def _blocks(meta: Mapping, shapes: Mapping) -> dict:
    """Each block's kind (attention where it stores attn_q), its key/value heads (the per-block
    list's largest), Mamba's expand (inner size over the model's width)"""
    kv = meta["attention.head_count_kv"]
    kinds = ["attention" if f"blk.{i}.attn_q.weight" in shapes else "mamba"
             for i in range(meta["block_count"])]
    return {"layer_types": kinds, "num_key_value_heads": max(kv) if isinstance(kv, list) else kv,
            "mamba_expand": meta["ssm.inner_size"] // meta["embedding_length"]}


GGUF = {"granitemoehybrid": ("granitehybrid",)}
GGUF_TABLES = {"granitehybrid": GGUFTable(
    "granitemoehybrid", "GraniteMoeHybridForCausalLM",
    (*SPARSE_MOE_ROUTER, *_DT_BIAS, *_SHARED_MLP_DENSE), SPARSE_MOE_EXPERTS + _SHARED_MLP,
    config=_CONFIG, derive=_blocks, present=(("blk.0.attn_q.bias", "attention_bias"),
                                             ("blk.0.ssm_conv1d.bias", "mamba_conv_bias"),
                                             ("blk.0.ssm_in.bias", "mamba_proj_bias")))}
