"""Phi-3.5-MoE's checkpoints: GGUF ``phimoe``, its head and attention biases read from the
tensors present."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import EXPERTS
from paramcount.model.checkpoint_tables import GGUFTable

GGUF = {"phimoe": ("phimoe",)}
GGUF_TABLES = {"phimoe": GGUFTable("phimoe", "PhimoeForCausalLM", fuse=EXPERTS,
                                   present=(("output.bias", "lm_head_bias"),
                                            ("blk.0.attn_q.bias", "attention_bias")))}
