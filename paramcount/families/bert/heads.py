"""BERT's further transformers classes (:mod:`paramcount.model.heads`)."""

from paramcount.model.heads import BERT
from paramcount.model.heads import HEADS
from paramcount.model.heads import LM
from paramcount.model.heads import standard
from paramcount.model.heads import with_classes

CLASSES = {"bert": with_classes(standard("Bert", *HEADS, heads=BERT, base="", own_head=None),
                                BertLMHeadModel=LM)}
