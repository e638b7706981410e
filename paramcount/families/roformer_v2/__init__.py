"""RoFormer-V2 (Su et al. 2022, ZhuiyiTechnology) as KerasHub builds it: RoformerV2Backbone.

A post-norm encoder with rotary positions (no position table), RMS norms holding a scale only,
and one switch for every bias (``use_bias``, ζ here: attention and feed-forward alike; the
released checkpoints have none). Token and segment tables, an embedding norm, L blocks; no pooler.
The attention's output projection maps M·d_k back to M·d_k, which the residual connection
requires to be d_e.
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.hparams import Relation
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import d_v
from paramcount.core.symbols import s
from paramcount.core.symbols import v
from paramcount.core.symbols import zeta
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import KERAS_FFN
from paramcount.families._lineages import KERAS_HEAD_SIZE
from paramcount.families._lineages import KERAS_HEADS
from paramcount.families._lineages import KERAS_LAYERS
from paramcount.families._lineages import KERAS_VOCAB
from paramcount.families._lineages import KERAS_WIDTH
from paramcount.model.components import attention
from paramcount.model.components import embedding
from paramcount.model.components import feed_forward
from paramcount.model.components import rms_norm
from paramcount.model.components import rotary_positions
from paramcount.model.mapping import Field
from paramcount.model.mapping import Table
from paramcount.model.registry import register

IDS = ("roformer_v2",)  # the ids this folder registers


# symbol ↔ RoformerV2Backbone argument. KerasHub configuration only: transformers has no
# RoFormer-v2 (its RoFormer is v1: absolute sinusoidal positions, biases and a pooler).
MAPPING = Table(
    fields=(
        KERAS_VOCAB,
        KERAS_LAYERS,
        KERAS_HEADS,
        KERAS_WIDTH,
        KERAS_FFN,
        KERAS_HEAD_SIZE,
        Field("zeta", keras="use_bias", flag=True, keras_default=0),
        Field("s", keras="num_segments", keras_default=2),
    ),
    keras_classes={"RoformerV2Backbone": "roformer_v2"},
    free=frozenset({"activation", "dropout", "max_wavelength"}),
)

register(keras_hub_backbone(
    "roformer_v2",
    presets=None,
    mapping=MAPPING,
    formula=group(
        "roformer_v2",
        group(
            "embeddings",
            embedding("token", v, match="token_embedding"),
            embedding("segment", s, match="segment_embedding"),
            rms_norm("norm", match="embeddings_layer_norm"),
        ),
        group(
            "blocks",
            rotary_positions(),
            attention(match="attention_layer", bias=zeta,
                      names=("q_dense_layer", "k_dense_layer", "v_dense_layer", "o_dense_layer")),
            rms_norm("norm_1", match="attention_norm"),
            feed_forward(bias=zeta),
            rms_norm("norm_2", match="feedforward_norm"),
            times=L,
            match=r"transformer_layer_\d+",
        ),
    ),
    required=(v, d_e, M, d_k, d_f, L),
    optional={s: 2, zeta: 0},
    restrictions=(
        Fixed(d_v, d_k, why="KerasHub's RoformerV2 attention gives values the key width (one head size)"),
        Holds(
            Relation(M * d_k, "==", d_e,
            reason="the attention output (M·d_k wide) is added to the residual"),
        ),
    ),
))
