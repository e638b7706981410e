"""OPT's further transformers classes (:mod:`paramcount.model.heads`)."""

from paramcount.model.heads import GPT
from paramcount.model.heads import QA
from paramcount.model.heads import SEQUENCE
from paramcount.model.heads import standard

# OPTModel is the declared class (its causal LM ties the head)
CLASSES = {"opt": standard("OPT", SEQUENCE, QA, heads=GPT, base="", own_head=None)}
