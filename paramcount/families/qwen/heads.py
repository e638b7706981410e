"""Qwen 2's further transformers classes (:mod:`paramcount.model.heads`)."""

from paramcount.model.heads import ALL
from paramcount.model.heads import DECODER
from paramcount.model.heads import standard

CLASSES = {"qwen": standard("Qwen2", *ALL, heads=DECODER)}
