"""ELECTRA's further transformers classes (:mod:`paramcount.model.heads`)."""

from collections.abc import Mapping

from paramcount.core.symbols import d_emb
from paramcount.model.heads import HEADS
from paramcount.model.heads import LM
from paramcount.model.heads import ROBERTA
from paramcount.model.heads import Head
from paramcount.model.heads import mlm
from paramcount.model.heads import standard
from paramcount.model.heads import with_classes

# RoBERTa's heads, its generator's LM head d_emb wide (the tied embedding's width).
ELECTRA: Mapping[str, Head] = {**ROBERTA, LM: mlm(
    None, "generator_predictions/dense", "generator_predictions/LayerNorm",
    "generator_lm_head/bias", width=d_emb)}

CLASSES = {"electra": with_classes(standard("Electra", *HEADS, heads=ELECTRA, base="", own_head=None),
                                   ElectraForCausalLM=LM, ElectraForMaskedLM=LM)}
