"""GPT-NeoX's checkpoints: GGUF ``gptneox`` (no key/value head count: every head has its own)."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import NO_KV
from paramcount.model.checkpoint_tables import GGUFTable

GGUF = {"gpt_neo_x": ("gptneox",)}
GGUF_TABLES = {"gptneox": GGUFTable("gpt_neox", "GPTNeoXForCausalLM", config=NO_KV)}
