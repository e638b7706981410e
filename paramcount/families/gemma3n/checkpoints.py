"""Gemma 3n's checkpoints: GGUF ``gemma3n``. Its AltUp projections, which llama.cpp stacks into
one tensor each, are named as the first, so the stack lands on the leaf that claims them all
(the per-layer inputs, LAuReL and AltUp blocks gguf's map names); the widths come from their
shapes."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from paramcount.model.checkpoint_tables import GGUFTable

_ALTUP = ((r"^altup_proj\.weight$", "model.altup_projections.0.weight"),
          (r"^altup_unembd_proj\.weight$", "model.altup_unembed_projections.0.weight"))

_CONFIG = MappingProxyType({"embedding_length": "hidden_size", "block_count": "num_hidden_layers",
                            "attention.head_count": "num_attention_heads",
                            "attention.shared_kv_layers": "num_kv_shared_layers"})


def _widths(meta: Mapping, shapes: Mapping) -> dict:
    """Gemma 3n's widths from its tensors: heads (attn_q, attn_k), the feed-forward (ffn_up),
    the per-layer inputs (per_layer_token_embd: its rows, and L × its width), AltUp's inputs
    (the stacked altup_proj, one fewer), LAuReL's rank (laurel_l)"""
    layers, heads = meta["block_count"], meta["attention.head_count"]
    head = shapes["blk.0.attn_q.weight"][0] // heads
    per_layer = shapes["per_layer_token_embd.weight"]
    return {"head_dim": head, "num_key_value_heads": shapes["blk.0.attn_k.weight"][0] // head,
            "intermediate_size": shapes["blk.0.ffn_up.weight"][0],
            "vocab_size_per_layer_input": per_layer[0],
            "hidden_size_per_layer_input": per_layer[1] // layers,
            "altup_num_inputs": shapes["altup_proj.weight"][0] + 1,
            "laurel_rank": shapes["blk.0.laurel_l.weight"][0],
            "altup_correct_scale": "blk.0.altup_correct_scale.weight" in shapes,
            "attention_bias": "blk.0.attn_q.bias" in shapes}


GGUF = {"gemma3n": ("gemma3n",)}
GGUF_TABLES = {"gemma3n": GGUFTable("gemma3n_text", "Gemma3nForCausalLM", _ALTUP, config=_CONFIG,
                                    derive=_widths)}
