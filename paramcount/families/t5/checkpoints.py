"""T5's checkpoints: GGUF ``t5``, its encoder and decoder stacks (``enc.blk.N``, ``dec.blk.N``;
``decoder_block_count`` where the config gives one)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from paramcount.model.checkpoint_tables import GGUFTable

_CONFIG = MappingProxyType({
    "embedding_length": "d_model", "feed_forward_length": "d_ff", "block_count": "num_layers",
    "decoder_block_count": "num_decoder_layers", "attention.head_count": "num_heads",
    "attention.key_length": "d_kv", "attention.relative_buckets_count":
    "relative_attention_num_buckets"})


def _feed_forward(meta: Mapping, shapes: Mapping) -> dict:
    """T5's feed-forward: gated (T5 v1.1, a gate beside the up projection) or not"""
    return {"feed_forward_proj": "gated-gelu" if "enc.blk.0.ffn_gate.weight" in shapes
            else "relu"}


GGUF = {"t5": ("t5",)}
GGUF_TABLES = {"t5": GGUFTable("t5", "T5ForConditionalGeneration", config=_CONFIG,
                               derive=_feed_forward)}
