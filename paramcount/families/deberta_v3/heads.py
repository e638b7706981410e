"""DeBERTa-v3's further transformers classes (:mod:`paramcount.model.heads`)."""

from collections.abc import Mapping

from paramcount.core.symbols import d_e
from paramcount.model.heads import BERT
from paramcount.model.heads import HEADS
from paramcount.model.heads import SEQUENCE
from paramcount.model.heads import Head
from paramcount.model.heads import linear
from paramcount.model.heads import scores
from paramcount.model.heads import standard

# BERT's, with a pooler of its own (ContextPooler, d_e → d_e) before the class scores.
DEBERTA: Mapping[str, Head] = {
    **BERT, SEQUENCE: linear("pooler", d_e, what="the context pooler").plus(scores("classifier", 1)),
}

CLASSES = {"deberta_v3": standard("DebertaV2", *HEADS, heads=DEBERTA, base="", own_head=None,
                                  refused={"DebertaV2ForMaskedLM": "its prediction head is not in "
                                           "paramcount's DeBERTa-v3 yet"})}
