"""Mamba's and Mamba-2's checkpoints: GGUF ``mamba`` and ``mamba2``. Their state sizes are spelled
otherwise in the metadata than in the config (declared key by key), and the widths llama.cpp
writes as an inner size are read back as ``expand`` and Mamba-2's head width."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from paramcount.model.checkpoint_tables import DT_BIAS
from paramcount.model.checkpoint_tables import GGUFTable

_MAMBA = MappingProxyType({
    "embedding_length": "hidden_size", "block_count": "num_hidden_layers",
    "ssm.state_size": "state_size", "ssm.conv_kernel": "conv_kernel",
    "ssm.time_step_rank": "time_step_rank"})


def _expand(meta: Mapping, shapes: Mapping) -> dict:
    """Mamba's expand: its inner width over the model's"""
    inner, width = meta["ssm.inner_size"], meta["embedding_length"]
    return {"expand": inner // width} if inner % width == 0 else {"intermediate_size": inner}


_MAMBA2 = MappingProxyType({
    "embedding_length": "hidden_size", "block_count": "num_hidden_layers",
    "ssm.state_size": "state_size", "ssm.conv_kernel": "conv_kernel",
    "ssm.group_count": "n_groups", "ssm.time_step_rank": "num_heads"})


def _heads(meta: Mapping, shapes: Mapping) -> dict:
    """Mamba-2's head width and expand: its inner width (heads × head width, which its
    converter writes as time_step_rank and inner_size) over the heads and over the model's"""
    inner, heads, width = meta["ssm.inner_size"], meta["ssm.time_step_rank"], meta["embedding_length"]
    return {"head_dim": inner // heads, **({"expand": inner // width} if inner % width == 0 else {})}


_BIASES = (("blk.0.ssm_conv1d.bias", "use_conv_bias"), ("blk.0.ssm_in.bias", "use_bias"))

GGUF = {"mamba": ("mamba",), "mamba2": ("mamba2",)}
GGUF_TABLES = {
    "mamba": GGUFTable("mamba", "MambaForCausalLM", config=_MAMBA, derive=_expand,
                       present=_BIASES),
    "mamba2": GGUFTable("mamba2", "Mamba2ForCausalLM", DT_BIAS, config=_MAMBA2, derive=_heads,
                        present=_BIASES),
}
