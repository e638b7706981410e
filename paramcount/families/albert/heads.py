"""ALBERT's further transformers classes (:mod:`paramcount.model.heads`)."""

from paramcount.model.heads import BERT
from paramcount.model.heads import HEADS
from paramcount.model.heads import standard

CLASSES = {"albert": standard("Albert", *HEADS, heads=BERT, base="", own_head=None)}
