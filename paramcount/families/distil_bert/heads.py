"""DistilBERT's further transformers classes (:mod:`paramcount.model.heads`)."""

from collections.abc import Mapping

from paramcount.core.symbols import d_e
from paramcount.model.heads import HEADS
from paramcount.model.heads import QA
from paramcount.model.heads import SEQUENCE
from paramcount.model.heads import SPAN
from paramcount.model.heads import TOKEN
from paramcount.model.heads import Head
from paramcount.model.heads import linear
from paramcount.model.heads import scores
from paramcount.model.heads import standard

# A d_e → d_e pre-classifier before the class scores; two span logits.
DISTIL_BERT: Mapping[str, Head] = {
    SEQUENCE: linear("pre_classifier", d_e, what="the pre-classifier").plus(scores("classifier", 1)),
    TOKEN: scores("classifier", 1), QA: linear("qa_outputs", 2, what=SPAN),
}

CLASSES = {"distil_bert": standard("DistilBert", *HEADS, heads=DISTIL_BERT, base="", own_head=None)}
