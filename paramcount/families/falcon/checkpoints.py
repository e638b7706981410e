"""Falcon's checkpoints: GGUF ``falcon`` is the parallel block (its layout, one or two norms and
multi-query attention, read from its tensors), checked and shown as falcon_parallel; KerasHub's
sequential Falcon-RW is not a layout llama.cpp converts."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from paramcount.model.checkpoint_tables import GGUFTable

_CONFIG = MappingProxyType({"embedding_length": "hidden_size", "block_count": "num_hidden_layers",
                            "attention.head_count": "num_attention_heads",
                            "attention.head_count_kv": "num_kv_heads"})


def _parallel(meta: Mapping, shapes: Mapping) -> dict:
    """Falcon's layout, from its tensors: its converter writes feed_forward_length as 4 × d_e
    whatever the model's; one norm or two (attn_norm_2), biases or none; parallel blocks (the
    sequential Falcon-RW is not one llama.cpp converts)"""
    return {"parallel_attn": True, "new_decoder_architecture": True,
            "ffn_hidden_size": shapes["blk.0.ffn_up.weight"][0],
            "num_ln_in_parallel_attn": 2 if "blk.0.attn_norm_2.weight" in shapes else 1,
            "bias": "blk.0.attn_qkv.bias" in shapes}


GGUF = {"falcon_parallel": ("falcon",)}
NO_GGUF = {"falcon": "KerasHub's Falcon-RW layout (a sequential block, post_attention_layernorm): "
                     "llama.cpp's falcon is the parallel block, checked as falcon_parallel"}
GGUF_TABLES = {"falcon": GGUFTable("falcon", "FalconForCausalLM", config=_CONFIG, derive=_parallel,
                                   shown_as="falcon_parallel")}
