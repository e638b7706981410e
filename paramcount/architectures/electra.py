"""ELECTRA (Clark et al. 2020) as KerasHub builds it: ElectraBackbone.

BERT's layers over embeddings d_emb wide; when d_emb ≠ d_e (the small models and every
generator) a dense layer projects them to d_e, and KerasHub builds no projection otherwise, so the
projection term carries the flag η = 1 − δ(d_emb, d_e), which the implementation fixes.
"""

from __future__ import annotations

import sympy

from paramcount.components import dense
from paramcount.components.basic import EVEN_HEADS, HEADS_FIT
from paramcount.components.encoders import d_emb, encoder_stack, eta, factorised_embeddings
from paramcount.formula import group
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, d_e, d_f, n, s, v, zeta

register(Architecture(
    id="electra",
    title="ELECTRA backbone (keras_hub.models.ElectraBackbone): embeddings projected when "
          "d_emb ≠ d_e; pooler included",
    source="Clark et al. 2020; keras_hub/src/models/electra/electra_backbone.py",
    formula=group(
        "electra",
        factorised_embeddings(projection=eta, projection_match="embeddings_projection"),
        encoder_stack(L),
        dense("pooler", d_e, d_e, match="pooled_dense", kind="head"),
    ),
    reference="reference_models.electra:backbone",
    counting="trainable weights of the backbone (discriminator or generator body): d_emb-wide "
             "token, position and segment tables and their norm, the d_emb→d_e projection when "
             "the widths differ, L post-LN encoder blocks, the pooler; no discriminator or "
             "generator head",
    required=(v, n, d_emb, d_e, M, d_f, L),
    optional={s: 2},
    fixed={**EVEN_HEADS, zeta: 1, eta: 1 - sympy.KroneckerDelta(d_emb, d_e)},
    constraints=(HEADS_FIT,),
    presets="electra",
    family="keras_hub",
    keras_hub_metadata=True,
    examples={
        "tiny_projected": dict(v=100, n=16, d_emb=8, d_e=32, M=4, d_f=64, L=2),
        "tiny_unprojected": dict(v=100, n=16, d_emb=32, d_e=32, M=4, d_f=64, L=2),
        "odd_sizes": dict(v=997, n=7, d_emb=5, d_e=45, M=5, d_f=13, L=3, s=3),
    },
))
