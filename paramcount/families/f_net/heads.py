"""FNet's further transformers classes (:mod:`paramcount.model.heads`)."""

import dataclasses
from collections.abc import Mapping

from paramcount.model.heads import BERT
from paramcount.model.heads import HEADS
from paramcount.model.heads import LM
from paramcount.model.heads import Head
from paramcount.model.heads import standard
from paramcount.model.heads import with_classes

# BERT's heads, each class keeping the pooler.
FNET: Mapping[str, Head] = {k: dataclasses.replace(h, drops=()) for k, h in BERT.items()}

CLASSES = {"f_net": with_classes(standard("FNet", *HEADS, heads=FNET, base="", own_head=None),
                                 FNetForMaskedLM=LM)}
