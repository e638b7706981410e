"""Llama's further transformers classes (:mod:`paramcount.model.heads`)."""

from paramcount.model.heads import ALL
from paramcount.model.heads import DECODER
from paramcount.model.heads import standard

CLASSES = {"llama": standard("Llama", *ALL, heads=DECODER)}
