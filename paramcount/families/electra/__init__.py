"""ELECTRA (Clark et al. 2020) as KerasHub builds it: ElectraBackbone.

BERT's layers over embeddings d_emb wide; when d_emb ≠ d_e (the small models and every
generator) a dense layer projects them to d_e, and KerasHub builds no projection otherwise, so the
projection term carries the flag η = 1 − δ(d_emb, d_e), which the implementation fixes.
"""

from __future__ import annotations

import sympy

from paramcount.core.formula import group
from paramcount.core.restrictions import Fixed
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import n
from paramcount.core.symbols import s
from paramcount.core.symbols import v
from paramcount.core.symbols import zeta
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import ABSOLUTE_POSITIONS
from paramcount.families._lineages import EMBEDDING_WIDTH_128
from paramcount.families._lineages import FFN
from paramcount.families._lineages import HEADS
from paramcount.families._lineages import HEADS_FIT_WIDTH
from paramcount.families._lineages import KERAS_FLOORED_HEADS
from paramcount.families._lineages import LAYERS
from paramcount.families._lineages import POSITIONS_512
from paramcount.families._lineages import SEGMENTS
from paramcount.families._lineages import WIDTH
from paramcount.families._lineages import absolute_positions
from paramcount.families._lineages import encoder_only
from paramcount.families._lineages import no_cross_attention
from paramcount.families.bert import HF_BLOCKS
from paramcount.model.components import dense
from paramcount.model.components.encoders import d_emb
from paramcount.model.components.encoders import encoder_stack
from paramcount.model.components.encoders import eta
from paramcount.model.components.encoders import factorised_embeddings
from paramcount.model.components.encoders import full_width_attention_output
from paramcount.model.frameworks import Delta
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("electra",)  # the ids this folder registers


# symbol ↔ ElectraBackbone argument ↔ ElectraConfig key. η is fixed by d_emb and d_e in both
# frameworks (transformers also builds embeddings_project only when the widths differ).
MAPPING = family_table(
    # ElectraForPreTraining (the published discriminators) adds a head KerasHub has no class
    # for; it is refused by name rather than counted as the backbone.
    "electra", hf="ElectraModel", keras="ElectraBackbone",
    fields=(
        Field("v", keras="vocab_size", hf="vocab_size"),
        LAYERS,
        HEADS,
        WIDTH,
        EMBEDDING_WIDTH_128,
        FFN,
        POSITIONS_512,
        SEGMENTS,
    ),
    restrictions=(
        absolute_positions("ELECTRA"),
        *encoder_only("ElectraBackbone"),
        ABSOLUTE_POSITIONS,
        no_cross_attention("ELECTRA"),
    ),
)

register(keras_hub_backbone(
    "electra",
    formula=group(
        "electra",
        factorised_embeddings(projection=eta, projection_match="embeddings_projection"),
        encoder_stack(L),
        dense("pooler", d_e, d_e, match="pooled_dense", kind="head").with_cost(tokens=1),
    ),
    required=(v, n, d_emb, d_e, M, d_f, L),
    optional={s: 2},
    restrictions=(
        *KERAS_FLOORED_HEADS,
        Fixed(zeta, 1, why="ELECTRA's query, key, value and output projections carry biases"),
        Fixed(eta, 1 - sympy.KroneckerDelta(d_emb, d_e),
            why="KerasHub builds the d_emb → d_e projection only when the embeddings are narrower or wider than "
                "the width"),
        HEADS_FIT_WIDTH,
    ),
    mapping=MAPPING,
    transformers=Transformers(caches=False,
        weights={
            "embeddings.token": "embeddings/word_embeddings",
            "embeddings.position": "embeddings/position_embeddings",
            "embeddings.segment": "embeddings/token_type_embeddings",
            "embeddings.norm": "embeddings/LayerNorm",
            "embeddings.projection": "embeddings_project",
            **HF_BLOCKS,  # BertModel's
        },
        deltas=(
            # ElectraSelfOutput's dense; ElectraSelfAttention's q, k, v floor the heads as
            # KerasHub does (int(hidden_size / num_attention_heads))
            full_width_attention_output("ElectraSelfOutput"),
            Delta("pooler", None, "transformers' ElectraModel has no pooler; KerasHub's "
                                  "ElectraBackbone keeps a d_e→d_e pooled dense"),
        ),
    ),
))
