"""Qwen MoE's checkpoints: GGUF ``qwen2moe`` (experts fused as transformers holds them), and its
experts published one tensor each."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import EXPERTS
from paramcount.model.checkpoint_tables import MOE_SHARED_EXPERT
from paramcount.model.checkpoint_tables import PER_EXPERT
from paramcount.model.checkpoint_tables import GGUFTable

GGUF = {"qwen_moe": ("qwen2moe",)}
GGUF_TABLES = {"qwen2moe": GGUFTable("qwen2_moe", "Qwen2MoeForCausalLM", fuse=EXPERTS,
                                     config=MOE_SHARED_EXPERT)}
LAYOUTS = {"qwen2_moe": PER_EXPERT}
