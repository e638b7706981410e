"""BART's further transformers classes (:mod:`paramcount.model.heads`)."""

from collections.abc import Mapping

from paramcount.core.symbols import d_y
from paramcount.model.heads import QA
from paramcount.model.heads import SEQUENCE
from paramcount.model.heads import SPAN
from paramcount.model.heads import Head
from paramcount.model.heads import linear
from paramcount.model.heads import standard
from paramcount.model.heads import two_layer

# RoBERTa's two-layer head under classification_head; two span logits.
BART: Mapping[str, Head] = {
    SEQUENCE: two_layer("classification_head", d_y, what="the class scores"),
    QA: linear("qa_outputs", 2, what=SPAN),
}

# (base_ties: untied, transformers gives the encoder and the decoder embedding tables of their own)
CLASSES = {"bart": standard("Bart", SEQUENCE, QA, heads=BART, base="", own_head=None, base_ties=True,
                            refused={"BartForCausalLM": "it builds BART's decoder alone, which "
                                     "paramcount's BART does not count"})}
