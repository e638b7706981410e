"""Command R7B's checkpoints (``cohere2`` in GGUF as in transformers)."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import GGUFTable

GGUF = {"cohere2": ("cohere2",)}
GGUF_TABLES = {"cohere2": GGUFTable("cohere2", "Cohere2ForCausalLM")}
