"""Qwen3.5's further transformers classes (:mod:`paramcount.model.heads`)."""

from paramcount.model.heads import BASE
from paramcount.model.heads import DECODER
from paramcount.model.heads import SEQUENCE
from paramcount.model.heads import standard

CLASSES = {"qwen3_5": standard("Qwen3_5Text", BASE, SEQUENCE, heads=DECODER)}
