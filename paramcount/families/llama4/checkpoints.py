"""Llama 4's checkpoints: GGUF ``llama4``, its experts under feed_forward; its converter writes
the dense MLP's width as feed_forward_length, the experts' apart."""

from __future__ import annotations

from types import MappingProxyType

from paramcount.model.checkpoint_tables import COMMON
from paramcount.model.checkpoint_tables import EXPERTS_FF
from paramcount.model.checkpoint_tables import GGUFTable

_CONFIG = MappingProxyType({**COMMON, "feed_forward_length": "intermediate_size_mlp",
                            "expert_feed_forward_length": "intermediate_size",
                            "interleave_moe_layer_step": "interleave_moe_layer_step"})

GGUF = {"llama4_text": ("llama4",)}
GGUF_TABLES = {"llama4": GGUFTable("llama4_text", "Llama4ForCausalLM", fuse=EXPERTS_FF,
                                   config=_CONFIG)}
