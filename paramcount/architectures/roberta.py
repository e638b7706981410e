"""RoBERTa (Liu et al. 2019) as KerasHub builds it: RobertaBackbone.

BERT's encoder without segment embeddings or pooler: token and learned-position tables, an
embedding layer norm, L post-LN encoder blocks.
"""

from __future__ import annotations

from paramcount.components.basic import EVEN_HEADS, HEADS_FIT
from paramcount.components.encoders import encoder_stack, token_position_embeddings
from paramcount.formula import group
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, d_e, d_f, n, v, zeta


def roberta_formula(name: str):
    """RoBERTa's tree (XLM-RoBERTa reuses it: same layers)."""
    return group(name, token_position_embeddings(), encoder_stack(L))


COMMON = dict(
    required=(v, n, d_e, M, d_f, L),
    fixed={**EVEN_HEADS, zeta: 1},
    constraints=(HEADS_FIT,),
    family="keras_hub",
    keras_hub_metadata=True,
    examples={
        "tiny": dict(v=100, n=16, d_e=32, M=4, d_f=64, L=2),
        "odd_sizes": dict(v=997, n=7, d_e=45, M=5, d_f=13, L=3),
    },
)

register(Architecture(
    id="roberta",
    title="RoBERTa backbone (keras_hub.models.RobertaBackbone): no segments, no pooler",
    source="Liu et al. 2019; keras_hub/src/models/roberta/roberta_backbone.py",
    formula=roberta_formula("roberta"),
    reference="reference_models.roberta:backbone",
    counting="trainable weights of the backbone: token and position embeddings, embedding norm, "
             "L post-LN encoder blocks. KerasHub holds n positions (the original checkpoint's "
             "n+2, offset by the padding index, are trimmed), no token-type table and no pooler",
    presets="roberta",
    **COMMON,
))
