"""Qwen 2's checkpoints: GGUF ``qwen2``, and Qwen2.5-7B's published header."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import GGUFTable

GGUF = {"qwen": ("qwen2",)}
GGUF_TABLES = {"qwen2": GGUFTable("qwen2", "Qwen2ForCausalLM")}
PUBLISHED = {"qwen2.5-7b.json": ("Qwen/Qwen2.5-7B", 7_615_616_512, "dense", ())}
