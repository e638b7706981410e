"""Qwen 3.5 MoE's checkpoints: GGUF ``qwen35moe``, the gated delta net beside routed and
shared experts (Qwen3-Next's metadata keys)."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import EXPERTS
from paramcount.model.checkpoint_tables import GATED_DELTA_MOE
from paramcount.model.checkpoint_tables import GDN_DT_BIAS
from paramcount.model.checkpoint_tables import GGUFTable
from paramcount.model.checkpoint_tables import gated_delta

GGUF = {"qwen3_5_moe": ("qwen35moe",)}
GGUF_TABLES = {"qwen35moe": GGUFTable("qwen3_5_moe_text", "Qwen3_5MoeForCausalLM", GDN_DT_BIAS,
                                      EXPERTS, config=GATED_DELTA_MOE, derive=gated_delta)}
