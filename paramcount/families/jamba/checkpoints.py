"""Jamba's checkpoints: GGUF ``jamba``, its layout (attention and experts, each recurring with a
period from an offset) read from which blocks store which tensors."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from paramcount.model.checkpoint_tables import EXPERTS_FF
from paramcount.model.checkpoint_tables import GGUFTable

_CONFIG = MappingProxyType({
    "embedding_length": "hidden_size", "block_count": "num_hidden_layers",
    "attention.head_count": "num_attention_heads", "feed_forward_length": "intermediate_size",
    "expert_count": "num_experts", "expert_used_count": "num_experts_per_tok",
    "ssm.conv_kernel": "mamba_d_conv", "ssm.state_size": "mamba_d_state",
    "ssm.time_step_rank": "mamba_dt_rank"})


def _periodic(blocks: list[int], layers: int) -> tuple[int, int]:
    """(period, offset) of blocks that recur from the first (one block: the period L)"""
    return (blocks[1] - blocks[0] if len(blocks) > 1 else layers), blocks[0]


def _layout(meta: Mapping, shapes: Mapping) -> dict:
    """Jamba's layout from its tensors: attention where a block stores attn_q, experts where it
    stores ffn_down_exps (each recurring with a period from an offset); its key/value heads from
    the per-block list, its expand from the inner size"""
    layers, kv = meta["block_count"], meta["attention.head_count_kv"]
    att = [i for i in range(layers) if f"blk.{i}.attn_q.weight" in shapes]
    moe = [i for i in range(layers) if {f"blk.{i}.ffn_down_exps.weight",
                                         f"blk.{i}.ffn_down_exps"} & set(shapes)]
    out = {"num_key_value_heads": max(kv) if isinstance(kv, list) else kv,
           "mamba_expand": meta["ssm.inner_size"] // meta["embedding_length"],
           "attn_layer_period": _periodic(att, layers)[0],
           "attn_layer_offset": _periodic(att, layers)[1]}
    if moe:
        out["expert_layer_period"], out["expert_layer_offset"] = _periodic(moe, layers)
    return out


GGUF = {"jamba": ("jamba",)}
GGUF_TABLES = {"jamba": GGUFTable("jamba", "JambaForCausalLM", fuse=EXPERTS_FF, config=_CONFIG,
                                  derive=_layout,
                                  present=(("blk.0.ssm_conv1d.bias", "mamba_conv_bias"),
                                           ("blk.0.ssm_in.bias", "mamba_proj_bias")))}
