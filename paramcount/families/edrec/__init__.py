"""EdRec as KerasHub builds it: EdRecBackbone, a pre-norm encoder-decoder.

One token table shared by encoder and decoder; no position embedding (the blocks hold none);
RMS norms that scale by (1 + γ) with one γ vector each; bias-free attention whose heads split d_e
evenly; a gated feed-forward network (gate, up, down) without biases. KerasHub ships no preset,
so the architecture is checked on example sets.
"""

from __future__ import annotations

from functools import partial

from paramcount.core.formula import group
from paramcount.core.formula import zero
from paramcount.core.restrictions import Fixed
from paramcount.core.symbols import L_dec
from paramcount.core.symbols import L_enc
from paramcount.core.symbols import M
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import v
from paramcount.core.symbols import zeta
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import HEADS_FIT_WIDTH
from paramcount.families._lineages import KERAS_FFN
from paramcount.families._lineages import KERAS_FLOORED_HEADS
from paramcount.families._lineages import KERAS_HEADS
from paramcount.families._lineages import KERAS_WIDTH
from paramcount.model.components import attention
from paramcount.model.components import embedding
from paramcount.model.components import gated_feed_forward
from paramcount.model.components import rms_norm
from paramcount.model.mapping import Field
from paramcount.model.mapping import Table
from paramcount.model.registry import register

IDS = ("edrec",)  # the ids this folder registers


_ffn = partial(gated_feed_forward, match="mlp", bias=0, names=("gate_proj", "up_proj", "down_proj"))

# symbol ↔ EdRecBackbone argument. KerasHub configuration only: transformers has no EdRec.
MAPPING = Table(
    fields=(
        Field("v", keras="vocab_size"),
        Field("L_enc", keras="num_layers_enc"),
        Field("L_dec", keras="num_layers_dec"),
        KERAS_WIDTH,
        KERAS_FFN,
        KERAS_HEADS,
    ),
    keras_classes={"EdRecBackbone": "edrec"},
    free=frozenset({"dropout", "epsilon"}),
)

register(keras_hub_backbone(
    "edrec",
    presets=None,
    mapping=MAPPING,
    formula=group(
        "edrec",
        group("embeddings",
              embedding("token", v, match="embedding",
                        note="v × d_e table shared by encoder and decoder"),
              zero("positions", "no position embedding: the blocks hold none", kind="position")),
        group(
            "encoder",
            rms_norm("norm_1", match="pre_attention_norm"),
            attention("attention", match="attention", bias=zeta),
            rms_norm("norm_2", match="pre_ffw_norm"),
            _ffn(),
            times=L_enc,
            match=r"encoder_layer_\d+",
        ),
        group(
            "decoder",
            rms_norm("norm_1", match="pre_self_attn_norm"),
            attention("self_attention", match="self_attention", bias=zeta),
            rms_norm("norm_cross", match="pre_cross_attn_norm"),
            attention("cross_attention", match="cross_attention", bias=zeta, kind="cross-attention"),
            rms_norm("norm_2", match="pre_ffw_norm"),
            _ffn(),
            times=L_dec,
            match=r"decoder_layer_\d+",
        ),
    ),
    required=(v, d_e, M, d_f, L_enc, L_dec),
    restrictions=(
        *KERAS_FLOORED_HEADS,
        Fixed(zeta, 0, why="EdRec's attention projections are bias-free"),
        HEADS_FIT_WIDTH,
    ),
))
