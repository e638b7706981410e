"""DBRX's checkpoints: GGUF ``dbrx``, whose config nests its attention and experts
(``attn_config``, ``ffn_config``)."""

from __future__ import annotations

from types import MappingProxyType

from paramcount.model.checkpoint_tables import GGUFTable

_CONFIG = MappingProxyType({
    "embedding_length": "d_model", "block_count": "n_layers", "attention.head_count": "n_heads",
    "attention.head_count_kv": "attn_config.kv_n_heads", "context_length": "max_seq_len",
    "feed_forward_length": "ffn_config.ffn_hidden_size",
    "expert_count": "ffn_config.moe_num_experts", "expert_used_count": "ffn_config.moe_top_k"})

GGUF = {"dbrx": ("dbrx",)}
GGUF_TABLES = {"dbrx": GGUFTable("dbrx", "DbrxForCausalLM", config=_CONFIG)}
