"""Command R's checkpoints: GGUF ``command-r``, its attention bias and QK norm read from the
tensors present."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import GGUFTable

GGUF = {"cohere": ("command-r",)}
GGUF_TABLES = {"command-r": GGUFTable("cohere", "CohereForCausalLM", present=(
    ("blk.0.attn_q.bias", "attention_bias"), ("blk.0.attn_q_norm.weight", "use_qk_norm")))}
