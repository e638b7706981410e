"""Qwen 3's checkpoints: llama.cpp writes them as ``qwen3``."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import GGUFTable

GGUF = {"qwen3": ("qwen3",)}
GGUF_TABLES = {"qwen3": GGUFTable("qwen3", "Qwen3ForCausalLM")}
