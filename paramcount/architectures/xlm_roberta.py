"""XLM-RoBERTa (Conneau et al. 2020) as KerasHub builds it: XLMRobertaBackbone, a RoBERTa
backbone (same layers, same count) with a 250,002-token SentencePiece vocabulary."""

from __future__ import annotations

from paramcount.architectures.roberta import COMMON, roberta_formula
from paramcount.registry import Architecture, register

register(Architecture(
    id="xlm_roberta",
    title="XLM-RoBERTa backbone (keras_hub.models.XLMRobertaBackbone): RoBERTa's layers",
    source="Conneau et al. 2020; keras_hub/src/models/xlm_roberta/xlm_roberta_backbone.py "
           "(a subclass of RobertaBackbone)",
    formula=roberta_formula("xlm_roberta"),
    reference="reference_models.xlm_roberta:backbone",
    counting="trainable weights of the backbone: token and position embeddings, embedding norm, "
             "L post-LN encoder blocks; no token-type table, no pooler",
    presets="xlm_roberta",
    **COMMON,
))
