"""XLM-RoBERTa (Conneau et al. 2020) as KerasHub builds it: XLMRobertaBackbone, a RoBERTa
backbone (same layers, same count) with a 250,002-token SentencePiece vocabulary."""

from __future__ import annotations

from paramcount.families.roberta import encoder
from paramcount.families.roberta import masked_lm
from paramcount.families.roberta import table
from paramcount.model.registry import register

IDS = ("xlm_roberta", "xlm_roberta_masked_lm")  # the ids this folder registers


# transformers' XLMRobertaModel is RobertaModel's code (same names, same deltas, same refusal
# of M ∤ d_e).
MAPPING = table("xlm-roberta", "XLMRoberta", "XLMRoberta", "xlm_roberta")
_WHY = ("transformers' XLMRobertaSelfAttention refuses a hidden size that is not a multiple of the heads; "
        "KerasHub floors")

register(encoder(
    "xlm_roberta",
    mapping=MAPPING,
    why=_WHY,
))

register(masked_lm(
    "xlm_roberta",
    title="XLM-RoBERTa masked LM (keras_hub.models.XLMRobertaMaskedLM): backbone + MLM head",
    source="Conneau et al. 2020; keras_hub/src/models/xlm_roberta/xlm_roberta_masked_lm.py",
    mapping=MAPPING,
    why=_WHY,
))
