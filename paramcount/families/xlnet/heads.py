"""XLNet's further transformers classes (:mod:`paramcount.model.heads`)."""

import dataclasses
from collections.abc import Mapping

from paramcount.core.formula import leaf
from paramcount.core.symbols import d_e
from paramcount.core.symbols import v
from paramcount.model.heads import BERT
from paramcount.model.heads import LM
from paramcount.model.heads import QA
from paramcount.model.heads import SEQUENCE
from paramcount.model.heads import TIED_OUTPUT
from paramcount.model.heads import TOKEN
from paramcount.model.heads import Classes
from paramcount.model.heads import Head
from paramcount.model.heads import linear
from paramcount.model.heads import scores
from paramcount.model.mapping import Require

_SUMMARY = (
    Require("summary_use_proj", (True,), "XLNet's sequence summary here is a d_e → d_e projection"),
    Require("summary_proj_to_labels", (False,), "XLNet's sequence summary here is d_e wide"),
    Require("summary_type", ("last", "first", "mean", "cls_index"),
            "transformers' XLNet summary raises NotImplementedError for 'attn'"),
)
# The LM head is the token embedding (tied) with a bias; the sequence summary.
XLNET: Mapping[str, Head] = {
    **BERT,
    LM: Head((leaf("lm_loss", v, kind="head", note="the output projection is the token "
                   "embedding (tied); only its bias is new"),), {"lm_loss": "lm_loss/bias"},
             "the LM head: lm_loss, tied to the token embedding, with a bias",
             requires=(TIED_OUTPUT,)),
    SEQUENCE: dataclasses.replace(linear("sequence_summary", d_e, what="the sequence summary"),
                                  requires=_SUMMARY).plus(scores("logits_proj", 1)),
}

CLASSES = {"xlnet": Classes(
    names={"XLNetLMHeadModel": LM, "XLNetForSequenceClassification": SEQUENCE,
           "XLNetForTokenClassification": TOKEN, "XLNetForQuestionAnsweringSimple": QA},
    heads=XLNET, base="", own_head=None)}
