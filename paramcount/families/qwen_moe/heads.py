"""Qwen2-MoE's further transformers classes (:mod:`paramcount.model.heads`)."""

from paramcount.model.heads import ALL
from paramcount.model.heads import DECODER
from paramcount.model.heads import standard

CLASSES = {"qwen_moe": standard("Qwen2Moe", *ALL, heads=DECODER)}
