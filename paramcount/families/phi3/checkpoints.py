"""Phi-3's checkpoints: llama.cpp's GGUF architecture ``phi3``."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import GGUFTable

GGUF = {"phi3": ("phi3",)}
GGUF_TABLES = {"phi3": GGUFTable("phi3", "Phi3ForCausalLM")}
