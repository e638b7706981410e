"""Qwen3-Next's checkpoints: GGUF ``qwen3next``, its linear-attention layout (the gated delta
net's keys, and each block's kind from its tensors) beside Qwen MoE's experts."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import EXPERTS
from paramcount.model.checkpoint_tables import GATED_DELTA_MOE
from paramcount.model.checkpoint_tables import GDN_DT_BIAS
from paramcount.model.checkpoint_tables import GGUFTable
from paramcount.model.checkpoint_tables import gated_delta

GGUF = {"qwen3_next": ("qwen3next",)}
GGUF_TABLES = {"qwen3next": GGUFTable("qwen3_next", "Qwen3NextForCausalLM", GDN_DT_BIAS, EXPERTS,
                                      config=GATED_DELTA_MOE, derive=gated_delta)}
