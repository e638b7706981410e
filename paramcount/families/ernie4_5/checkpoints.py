"""ERNIE 4.5's checkpoints: GGUF ``ernie4_5`` and ``ernie4_5-moe``. The MoE's router bias sits
under the router (gate.moe_statics); the blocks that hold experts come from
moe_layer_start_index, every moe_layer_interval-th."""

from __future__ import annotations

from types import MappingProxyType

from paramcount.model.checkpoint_tables import EXPERTS
from paramcount.model.checkpoint_tables import NO_EXPERTS
from paramcount.model.checkpoint_tables import GGUFTable

_MOE = MappingProxyType({
    **NO_EXPERTS, "expert_count": "moe_num_experts", "expert_used_count": "moe_k",
    "expert_feed_forward_length": "moe_intermediate_size",
    "expert_shared_count": "moe_num_shared_experts",
    "interleave_moe_layer_step": "moe_layer_interval",
    "leading_dense_block_count": "moe_layer_start_index"})
_PROBS = ((r"^blk\.(\d+)\.exp_probs_b\.bias$",
           r"model.layers.\1.mlp.gate.moe_statics.e_score_correction_bias"),)

GGUF = {"ernie4_5": ("ernie4_5",), "ernie4_5_moe": ("ernie4_5-moe",)}
GGUF_TABLES = {"ernie4_5": GGUFTable("ernie4_5", "Ernie4_5ForCausalLM"),
               "ernie4_5-moe": GGUFTable("ernie4_5_moe", "Ernie4_5_MoeForCausalLM", _PROBS,
                                         EXPERTS, config=_MOE)}
