"""Granite's checkpoints: GGUF ``granite``, its attention and MLP biases read from the tensors
present."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import GGUFTable

GGUF = {"granite": ("granite",)}
GGUF_TABLES = {"granite": GGUFTable("granite", "GraniteForCausalLM", present=(
    ("blk.0.attn_q.bias", "attention_bias"), ("blk.0.ffn_up.bias", "mlp_bias")))}
