"""DistilBERT (Sanh et al. 2019) as KerasHub builds it: DistilBertBackbone.

BERT halved in depth, with the segment embeddings and the pooler removed: token and
learned-position tables, an embedding layer norm, L post-LN encoder blocks.
"""

from __future__ import annotations

from paramcount.components.basic import EVEN_HEADS, HEADS_FIT
from paramcount.components.encoders import encoder_stack, token_position_embeddings
from paramcount.formula import group
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, d_e, d_f, n, v, zeta

register(Architecture(
    id="distil_bert",
    title="DistilBERT backbone (keras_hub.models.DistilBertBackbone): no segments, no pooler",
    source="Sanh et al. 2019; keras_hub/src/models/distil_bert/distil_bert_backbone.py",
    formula=group(
        "distil_bert",
        token_position_embeddings(),
        encoder_stack(L),
    ),
    reference="reference_models.distil_bert:backbone",
    counting="trainable weights of the backbone: token and position embeddings, embedding norm, "
             "L post-LN encoder blocks (DistilBERT drops BERT's token types and pooler)",
    required=(v, n, d_e, M, d_f, L),
    fixed={**EVEN_HEADS, zeta: 1},
    constraints=(HEADS_FIT,),
    presets="distil_bert",
    family="keras_hub",
    keras_hub_metadata=True,
    examples={
        "tiny": dict(v=100, n=16, d_e=32, M=4, d_f=64, L=2),
        "odd_sizes": dict(v=997, n=7, d_e=45, M=5, d_f=13, L=3),
    },
))
