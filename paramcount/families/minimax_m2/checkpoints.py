"""MiniMax-M2's checkpoints: GGUF ``minimax-m2``, its router's correction bias beside the router
(not under it)."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import EXPERTS
from paramcount.model.checkpoint_tables import GGUFTable

_PROBS = ((r"^blk\.(\d+)\.exp_probs_b\.bias$", r"model.layers.\1.mlp.e_score_correction_bias"),)

GGUF = {"minimax_m2": ("minimax-m2",)}
GGUF_TABLES = {"minimax-m2": GGUFTable("minimax_m2", "MiniMaxM2ForCausalLM", _PROBS, EXPERTS)}
