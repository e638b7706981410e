"""Granite MoE's checkpoints: GGUF ``granitemoe``, its router and experts under
``block_sparse_moe`` as transformers 5 names them."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import SPARSE_MOE_EXPERTS
from paramcount.model.checkpoint_tables import SPARSE_MOE_ROUTER
from paramcount.model.checkpoint_tables import GGUFTable

GGUF = {"granitemoe": ("granitemoe",)}
GGUF_TABLES = {"granitemoe": GGUFTable("granitemoe", "GraniteMoeForCausalLM", SPARSE_MOE_ROUTER,
                                       SPARSE_MOE_EXPERTS,
                                       present=(("blk.0.attn_q.bias", "attention_bias"),))}
