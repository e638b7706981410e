"""Qwen 3.5's checkpoints: GGUF ``qwen35``, its text model: Qwen3-Next's gated delta net with
its projections split (gguf's map names them: attn_qkv, attn_gate, ssm_beta, ssm_alpha)."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import COMMON
from paramcount.model.checkpoint_tables import GATED_DELTA
from paramcount.model.checkpoint_tables import GDN_DT_BIAS
from paramcount.model.checkpoint_tables import GGUFTable
from paramcount.model.checkpoint_tables import gated_delta

GGUF = {"qwen3_5": ("qwen35",)}
GGUF_TABLES = {"qwen35": GGUFTable("qwen3_5_text", "Qwen3_5ForCausalLM", GDN_DT_BIAS,
                                   config={**COMMON, **GATED_DELTA}, derive=gated_delta)}
