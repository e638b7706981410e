"""SmolLM3's checkpoints, and the GGUF table llama.cpp's ``smollm3`` reads as."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import GGUFTable

GGUF = {"smollm3": ("smollm3",)}
GGUF_TABLES = {"smollm3": GGUFTable("smollm3", "SmolLM3ForCausalLM")}
