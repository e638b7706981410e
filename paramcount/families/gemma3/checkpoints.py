"""Gemma 3's checkpoints: GGUF ``gemma3``, and EmbeddingGemma's ``gemma-embedding`` (Gemma 3's
text stack without a head: Gemma3TextModel)."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import GGUFTable

GGUF = {"gemma3": ("gemma3",), "gemma3_embedding": ("gemma-embedding",)}
GGUF_TABLES = {"gemma3": GGUFTable("gemma3_text", "Gemma3ForCausalLM"),
               "gemma-embedding": GGUFTable("gemma3_text", "Gemma3TextModel")}
