"""BLOOM's checkpoints: GGUF ``bloom``, its config spelled n_layer / n_head."""

from __future__ import annotations

from types import MappingProxyType

from paramcount.model.checkpoint_tables import GGUFTable

_CONFIG = MappingProxyType({"embedding_length": "hidden_size", "block_count": "n_layer",
                            "attention.head_count": "n_head"})

GGUF = {"bloom": ("bloom",)}
GGUF_TABLES = {"bloom": GGUFTable("bloom", "BloomForCausalLM", config=_CONFIG)}
