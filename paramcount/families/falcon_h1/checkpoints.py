"""Falcon-H1's checkpoints: GGUF ``falcon-h1``, attention and a Mamba-2 mixer side by side in
every block (the mixer's inner width as its converter writes it: mamba_d_ssm), its biases and
norms read from the tensors present."""

from __future__ import annotations

from types import MappingProxyType

from paramcount.model.checkpoint_tables import COMMON
from paramcount.model.checkpoint_tables import GGUFTable

_CONFIG = MappingProxyType({
    **{k: v for k, v in COMMON.items() if not k.startswith("expert")},
    "ssm.conv_kernel": "mamba_d_conv", "ssm.state_size": "mamba_d_state",
    "ssm.group_count": "mamba_n_groups", "ssm.time_step_rank": "mamba_n_heads",
    "ssm.inner_size": "mamba_d_ssm"})
# the mixer's dt_bias (gguf's map takes it for dt_proj.bias: ssm_dt.bias)
_DT_BIAS = ((r"^blk\.(\d+)\.ssm_dt\.bias$", r"model.layers.\1.mamba.dt_bias"),)

GGUF = {"falcon_h1": ("falcon-h1",)}
GGUF_TABLES = {"falcon-h1": GGUFTable("falcon_h1", "FalconH1ForCausalLM", _DT_BIAS,
                                      config=_CONFIG, present=(
                                          ("blk.0.attn_q.bias", "attention_bias"),
                                          ("blk.0.ffn_up.bias", "mlp_bias"),
                                          ("blk.0.ssm_conv1d.bias", "mamba_conv_bias"),
                                          ("blk.0.ssm_in.bias", "mamba_proj_bias"),
                                          ("blk.0.ssm_out.bias", "projectors_bias"),
                                          ("blk.0.ssm_norm.weight", "mamba_rms_norm")))}
