"""Gemma 4's further transformers classes (:mod:`paramcount.model.heads`)."""

from paramcount.model.heads import BASE
from paramcount.model.heads import DECODER
from paramcount.model.heads import standard

CLASSES = {"gemma4": standard("Gemma4Text", BASE, heads=DECODER)}
