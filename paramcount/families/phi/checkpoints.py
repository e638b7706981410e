"""Phi-2's checkpoints: GGUF ``phi2`` (no key/value head count)."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import NO_KV
from paramcount.model.checkpoint_tables import GGUFTable

GGUF = {"phi": ("phi2",)}
GGUF_TABLES = {"phi2": GGUFTable("phi", "PhiForCausalLM", config=NO_KV)}
