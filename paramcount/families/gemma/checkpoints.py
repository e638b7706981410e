"""Gemma's checkpoints: GGUF ``gemma`` and ``gemma2`` (the family reads both classes), and
Gemma-2-9B's published header."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import GGUFTable

GGUF = {"gemma": ("gemma", "gemma2")}
GGUF_TABLES = {"gemma": GGUFTable("gemma", "GemmaForCausalLM"),
               "gemma2": GGUFTable("gemma2", "Gemma2ForCausalLM")}
PUBLISHED = {"gemma-2-9b.json": ("google/gemma-2-9b", 9_241_705_984,
                                 "dense, head tied (stored once)", ())}
