"""GPT-2's further transformers classes (:mod:`paramcount.model.heads`)."""

from paramcount.model.heads import GPT
from paramcount.model.heads import HEADS
from paramcount.model.heads import standard

# GPT2Model is the declared class (its causal LM ties the head)
CLASSES = {"gpt2": standard("GPT2", *HEADS, heads=GPT, base="", own_head=None)}
