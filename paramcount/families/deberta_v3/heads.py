"""DeBERTa-v3's further transformers classes (:mod:`paramcount.model.heads`)."""

import dataclasses
from collections.abc import Mapping

from paramcount.core.symbols import d_e
from paramcount.model.heads import BERT
from paramcount.model.heads import HEADS
from paramcount.model.heads import SEQUENCE
from paramcount.model.heads import Head
from paramcount.model.heads import linear
from paramcount.model.heads import scores
from paramcount.model.heads import standard
from paramcount.model.mapping import Field

# BERT's, with a pooler of its own (ContextPooler, d_e → d_e) before the class scores. The pooler
# is pooler_hidden_size wide (issue 32): read as d_e, so another width is refused.
_POOLER = dataclasses.replace(linear("pooler", d_e, what="the context pooler"),
                              fields=(Field("d_e", hf="pooler_hidden_size"),))
DEBERTA: Mapping[str, Head] = {**BERT, SEQUENCE: _POOLER.plus(scores("classifier", 1))}

CLASSES = {"deberta_v3": standard("DebertaV2", *HEADS, heads=DEBERTA, base="", own_head=None,
                                  refused={"DebertaV2ForMaskedLM": "its prediction head is not in "
                                           "paramcount's DeBERTa-v3 yet"})}
