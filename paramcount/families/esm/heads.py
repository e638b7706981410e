"""ESM's further transformers classes (:mod:`paramcount.model.heads`): RoBERTa's heads."""

from paramcount.model.heads import LM
from paramcount.model.heads import ROBERTA
from paramcount.model.heads import SEQUENCE
from paramcount.model.heads import TOKEN
from paramcount.model.heads import Classes

CLASSES = {"esm": Classes(
    names={"EsmForMaskedLM": LM, "EsmForSequenceClassification": SEQUENCE,
           "EsmForTokenClassification": TOKEN},
    heads=ROBERTA, base="", own_head=None)}
