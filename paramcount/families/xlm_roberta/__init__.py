"""XLM-RoBERTa (Conneau et al. 2020) as KerasHub builds it: XLMRobertaBackbone, a RoBERTa
backbone (same layers, same count) with a 250,002-token SentencePiece vocabulary."""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.restrictions import Holds
from paramcount.families.roberta import (
    BASE_DELTAS,
    HF_CONSTRAINTS,
    HF_ENCODER,
    HF_MLM_HEAD,
    HF_POOLER,
    MLM_DELTAS,
    mlm_head,
    roberta_family,
    roberta_formula,
    table,
)
from paramcount.model.frameworks import Transformers
from paramcount.model.registry import register

IDS = ("xlm_roberta", "xlm_roberta_masked_lm")  # the ids this folder registers


# transformers' XLMRobertaModel is RobertaModel's code (same names, same deltas, same refusal
# of M ∤ d_e).
MAPPING = table("xlm-roberta", "XLMRoberta", "XLMRoberta", "xlm_roberta")

register(roberta_family(
    id="xlm_roberta",
    title="XLM-RoBERTa backbone (keras_hub.models.XLMRobertaBackbone): RoBERTa's layers",
    source="Conneau et al. 2020; keras_hub/src/models/xlm_roberta/xlm_roberta_backbone.py "
           "(a subclass of RobertaBackbone)",
    formula=roberta_formula("xlm_roberta"),
    reference="reference_models.xlm_roberta:backbone",
    counting="trainable weights of the backbone: token and position embeddings, embedding norm, "
             "L post-LN encoder blocks; no token-type table, no pooler",
    presets="xlm_roberta",
    mapping=MAPPING,
    transformers=Transformers(weights={**HF_ENCODER, **HF_POOLER}, deltas=BASE_DELTAS,
                              restrictions=(
                                  *Holds.each(HF_CONSTRAINTS, binds="transformers",
                                      why="transformers' XLMRobertaSelfAttention refuses a hidden size that is not "
                                          "a multiple of the heads; KerasHub floors"),
                              )),
))

register(roberta_family(
    id="xlm_roberta_masked_lm",
    title="XLM-RoBERTa masked LM (keras_hub.models.XLMRobertaMaskedLM): backbone + MLM head",
    source="Conneau et al. 2020; keras_hub/src/models/xlm_roberta/xlm_roberta_masked_lm.py",
    formula=group("xlm_roberta_masked_lm", *roberta_formula("xlm_roberta").children, mlm_head()),
    reference="reference_models.xlm_roberta:masked_lm",
    counting="trainable weights of backbone and MLM head (dense, layer norm, output bias); the "
             "head's output projection is the token embedding (tied), counted once",
    presets="xlm_roberta",
    mapping=MAPPING,
    transformers=Transformers(weights={**HF_ENCODER, **HF_MLM_HEAD}, deltas=MLM_DELTAS,
                              restrictions=(
                                  *Holds.each(HF_CONSTRAINTS, binds="transformers",
                                      why="transformers' XLMRobertaSelfAttention refuses a hidden size that is not "
                                          "a multiple of the heads; KerasHub floors"),
                              )),
    keras_hub_metadata=False,
))
