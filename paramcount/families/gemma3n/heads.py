"""Gemma 3n's further transformers classes (:mod:`paramcount.model.heads`)."""

from paramcount.model.heads import BASE
from paramcount.model.heads import DECODER
from paramcount.model.heads import standard

CLASSES = {"gemma3n": standard("Gemma3nText", BASE, heads=DECODER)}
