"""Qwen3-MoE's further transformers classes (:mod:`paramcount.model.heads`)."""

from paramcount.model.heads import ALL
from paramcount.model.heads import DECODER
from paramcount.model.heads import standard

CLASSES = {"qwen3_moe": standard("Qwen3Moe", *ALL, heads=DECODER)}
