"""Qwen 3 MoE's checkpoints: GGUF ``qwen3moe``, its experts published one tensor each, and
Qwen3-30B-A3B's published header."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import EXPERTS
from paramcount.model.checkpoint_tables import MOE_SHARED_EXPERT
from paramcount.model.checkpoint_tables import PER_EXPERT
from paramcount.model.checkpoint_tables import GGUFTable

GGUF = {"qwen3_moe": ("qwen3moe",)}
GGUF_TABLES = {"qwen3moe": GGUFTable("qwen3_moe", "Qwen3MoeForCausalLM", fuse=EXPERTS,
                                     config=MOE_SHARED_EXPERT)}
LAYOUTS = {"qwen3_moe": PER_EXPERT}
PUBLISHED = {"qwen3-30b-a3b.json": ("Qwen/Qwen3-30B-A3B", 30_532_122_624,
                                    "one tensor per expert (gate_proj, up_proj, down_proj)", ())}
