"""BLOOM's further transformers classes (:mod:`paramcount.model.heads`)."""

from paramcount.model.heads import ALL
from paramcount.model.heads import GPT
from paramcount.model.heads import standard

CLASSES = {"bloom": standard("Bloom", *ALL, heads=GPT, base="transformer")}  # head: a tied delta
