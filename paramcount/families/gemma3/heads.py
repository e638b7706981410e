"""Gemma 3's further transformers classes (:mod:`paramcount.model.heads`)."""

from paramcount.model.heads import DECODER
from paramcount.model.heads import SEQUENCE
from paramcount.model.heads import standard

CLASSES = {"gemma3": standard("Gemma3Text", SEQUENCE, heads=DECODER)}
