"""StarCoder2's checkpoints: GGUF ``starcoder2``, its biases read from its tensors."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import GGUFTable

GGUF = {"starcoder2": ("starcoder2",)}
GGUF_TABLES = {"starcoder2": GGUFTable("starcoder2", "Starcoder2ForCausalLM",
                                       present=(("blk.0.attn_q.bias", "use_bias"),))}
