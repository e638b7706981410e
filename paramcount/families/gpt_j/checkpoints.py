"""GPT-J's checkpoints: GGUF ``gptj``, its config spelled as GPT-2's (n_embd, n_layer, n_head,
n_inner)."""

from __future__ import annotations

from types import MappingProxyType

from paramcount.model.checkpoint_tables import GGUFTable

_CONFIG = MappingProxyType({"embedding_length": "n_embd", "block_count": "n_layer",
                            "attention.head_count": "n_head", "feed_forward_length": "n_inner"})

GGUF = {"gpt_j": ("gptj",)}
GGUF_TABLES = {"gptj": GGUFTable("gptj", "GPTJForCausalLM", config=_CONFIG)}
