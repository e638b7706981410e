"""Qwen3.5-MoE's further transformers classes (:mod:`paramcount.model.heads`)."""

from paramcount.model.heads import BASE
from paramcount.model.heads import DECODER
from paramcount.model.heads import standard

CLASSES = {"qwen3_5_moe": standard("Qwen3_5MoeText", BASE, heads=DECODER)}
