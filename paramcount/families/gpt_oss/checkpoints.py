"""gpt-oss's checkpoints: GGUF ``gpt-oss``, its experts' biases stored (and fused) as their
weights are."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import EXPERTS
from paramcount.model.checkpoint_tables import GGUFTable

_DOWN_BIAS = ((r"^blk\.(\d+)\.ffn_down_exps\.bias$", r"model.layers.\1.mlp.experts.down_proj_bias"),)
_EXPERTS_BIAS = (*EXPERTS, ("ffn_gate_exps.bias", "ffn_up_exps.bias",
                            "model.layers.{bid}.mlp.experts.gate_up_proj_bias", 1))

GGUF = {"gpt_oss": ("gpt-oss",)}
GGUF_TABLES = {"gpt-oss": GGUFTable("gpt_oss", "GptOssForCausalLM", _DOWN_BIAS, _EXPERTS_BIAS)}
