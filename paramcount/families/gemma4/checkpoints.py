"""Gemma 4's checkpoints: GGUF ``gemma4``, its sliding/global layout and shared K=V read from
the blocks' attention tensors."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from paramcount.model.checkpoint_tables import GGUFTable

_CONFIG = MappingProxyType({"embedding_length": "hidden_size", "block_count": "num_hidden_layers",
                            "attention.head_count": "num_attention_heads"})


def _layout(meta: Mapping, shapes: Mapping) -> dict:
    """Gemma 4's layout from its tensors: a global block is one whose attention differs from
    the sliding blocks' (the most common kind): its head width (attn_q's rows over the heads),
    its key/value heads, and no attn_v when keys are values (blocks all alike: Gemma 4's
    default pattern, which counts the same); the feed-forward width from
    ffn_up; per-layer inputs (per_layer_token_embd) stated as their width"""
    layers, heads = meta["block_count"], meta["attention.head_count"]
    shape = {i: (shapes[f"blk.{i}.attn_q.weight"][0] // heads, shapes[f"blk.{i}.attn_k.weight"][0],
                 f"blk.{i}.attn_v.weight" in shapes) for i in range(layers)}
    kinds = list(shape.values())
    local = max(kinds, key=kinds.count)
    glob = next((k for k in kinds if k != local), local)
    per_layer = shapes.get("per_layer_token_embd.weight")
    out = {"head_dim": local[0], "num_key_value_heads": local[1] // local[0],
           "global_head_dim": glob[0], "num_global_key_value_heads": glob[1] // glob[0],
           "attention_k_eq_v": not glob[2],
           "intermediate_size": shapes["blk.0.ffn_up.weight"][0],
           "hidden_size_per_layer_input": per_layer[-1] // layers if per_layer else 0}
    # blocks all alike, no tensor tells them apart: the last of every 6 global, and the last
    # (Gemma's rule; which ones does not change the count)
    out["layer_types"] = ["full_attention" if (shape[i] == glob if glob != local else (
        (i + 1) % 6 == 0 or i == layers - 1)) else "sliding_attention" for i in range(layers)]
    return out


GGUF = {"gemma4": ("gemma4",)}
GGUF_TABLES = {"gemma4": GGUFTable("gemma4_text", "Gemma4ForCausalLM", config=_CONFIG,
                                   derive=_layout)}
