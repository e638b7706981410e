"""GPT-2's checkpoints: GGUF ``gpt2`` (the causal LM: llama.cpp's gpt2 stores no separate head),
its config spelled as GPT2Config spells it, and GPT-2's published safetensors."""

from __future__ import annotations

from types import MappingProxyType

from paramcount.model.checkpoint_tables import GGUFTable

_CONFIG = MappingProxyType({"embedding_length": "n_embd", "block_count": "n_layer",
                            "attention.head_count": "n_head", "feed_forward_length": "n_inner",
                            "context_length": "n_positions"})

GGUF = {"gpt2_causal_lm": ("gpt2",)}
NO_GGUF = {"gpt2": "GPT2Model is GPT-2 without its head, which is the tied embedding: its GGUF is "
                   "the one gpt2_causal_lm's check writes (llama.cpp's gpt2 stores no separate "
                   "head)"}
GGUF_TABLES = {"gpt2": GGUFTable("gpt2", "GPT2LMHeadModel", config=_CONFIG)}
# GPT-2's safetensors (names without the transformer. prefix) store each block's causal
# mask buffer attn.bias, 1 × 1 × 1024 × 1024: the Hub shows 137M for a 124M model.
PUBLISHED = {"gpt2.json": ("openai-community/gpt2", 137_022_720,
                           "no transformer. prefix, head tied (stored once), attn.bias mask buffers",
                           (("attention mask buffers", 12 * 1024 * 1024),))}
