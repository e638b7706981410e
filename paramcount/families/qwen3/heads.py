"""Qwen 3's further transformers classes (:mod:`paramcount.model.heads`)."""

from paramcount.model.heads import ALL
from paramcount.model.heads import DECODER
from paramcount.model.heads import standard

CLASSES = {"qwen3": standard("Qwen3", *ALL, heads=DECODER)}
