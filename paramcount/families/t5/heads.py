"""T5's further transformers classes (:mod:`paramcount.model.heads`)."""

from paramcount.core.symbols import d_y
from paramcount.model.heads import BASE
from paramcount.model.heads import QA
from paramcount.model.heads import SEQUENCE
from paramcount.model.heads import SPAN
from paramcount.model.heads import Classes
from paramcount.model.heads import linear
from paramcount.model.heads import two_layer

CLASSES = {"t5": Classes(
    names={"T5Model": BASE, "T5ForSequenceClassification": SEQUENCE, "T5ForQuestionAnswering": QA},
    heads={SEQUENCE: two_layer("classification_head", d_y, what="the class scores"),
           QA: linear("qa_outputs", d_y, what=SPAN)}, base="",
    refused={"T5ForTokenClassification": "it builds T5's encoder alone (T5EncoderModel), "
             "which paramcount's T5 does not count"})}
