"""RoBERTa's further transformers classes (:mod:`paramcount.model.heads`)."""

from paramcount.model.heads import HEADS
from paramcount.model.heads import LM
from paramcount.model.heads import ROBERTA
from paramcount.model.heads import standard
from paramcount.model.heads import with_classes

CLASSES = {"roberta": with_classes(standard("Roberta", *HEADS, heads=ROBERTA, base="", own_head=None),
                                   RobertaForCausalLM=LM)}
