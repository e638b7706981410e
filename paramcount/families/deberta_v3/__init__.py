"""DeBERTa-v3 (He et al. 2021/2023) as KerasHub builds it: DebertaV3Backbone.

No absolute position table: positions enter every layer's disentangled attention through one
relative position table of 2·k_rel rows (k_rel = bucket_size: log-bucketed distances each side),
normalised once and shared by all layers. Each layer projects it with its own query and key
projections (DeBERTa-v3 shares those with the content path), so the relative term costs the
table and its norm only. The maximum sequence length n only sets the bucketing: it holds no
weights.
"""

from __future__ import annotations

import dataclasses

from paramcount.core.formula import Term
from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import B
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import T
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import n
from paramcount.core.symbols import v
from paramcount.core.symbols import zeta
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import FFN
from paramcount.families._lineages import HEADS
from paramcount.families._lineages import KERAS_FLOORED_HEADS
from paramcount.families._lineages import LAYERS
from paramcount.families._lineages import POSITIONS_512
from paramcount.families._lineages import VOCAB
from paramcount.families._lineages import WIDTH
from paramcount.model.components import embedding
from paramcount.model.components import layer_norm
from paramcount.model.components.encoders import encoder_stack
from paramcount.model.components.encoders import k_rel
from paramcount.model.components.encoders import relative_position_table
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("deberta_v3",)  # the ids this folder registers


def _disentangled(blocks: Term) -> Term:
    """The encoder blocks with what DeBERTa-v3's disentangled attention costs (transformers'
    DisentangledSelfAttention): the content scores and the values they weigh, 2·B·T·T·2·d_e; the
    shared relative table's 2·k_rel rows projected by the layer's own query and key projections
    once (not per sequence: 2·2·k_rel·d_e·d_e each, beside their tokens' 2·B·T·d_e·d_e); and the
    content-to-position and position-to-content products of the T queries and keys with those
    2·k_rel rows (2·B·T·d_e·2·k_rel each; gathering the buckets multiplies nothing), all measured
    beside the attention (``scores``). An encoder: nothing is cached."""
    rows = 2 * k_rel

    def one(c: Term) -> Term:
        if c.name in ("query", "key"):  # the flops said whole: the group is no plain T × T one
            return dataclasses.replace(c, cost=(("flops", 2 * B * T * d_e * d_e
                                                 + 2 * rows * d_e * d_e),))
        return c

    def attention(a: Term) -> Term:
        scores = leaf("scores", 0, match="scores", kind="attention",
                      note="content scores and the values, and the content-to-position and "
                           "position-to-content products with the 2·k_rel relative rows",
                      flops=2 * B * T * T * 2 * d_e + 2 * 2 * B * T * d_e * rows)
        return dataclasses.replace(a, children=(*map(one, a.children), scores))

    return dataclasses.replace(blocks, children=tuple(
        attention(c) if c.name == "attention" else c for c in blocks.children))


def _free_table(table: Term) -> Term:
    """The relative table: looked up (its rows sliced), its norm a scale: no products."""
    return dataclasses.replace(table, children=tuple(
        c.with_cost(flops=0) if c.name == "table" else c for c in table.children))


# symbol ↔ DebertaV3Backbone argument ↔ DebertaV2Config key. DebertaV2Config covers DeBERTa-v2
# and -v3 with switches; the formula is v3's: relative attention over a bucketed, normalised
# table, keys shared with content (so no per-layer position projections), no absolute positions,
# no token types, no convolution, embeddings d_e wide.
def _relative_span(config):
    """position_buckets as DebertaV2Encoder takes it: a relative table of 2·position_buckets
    rows, or without buckets (absent, -1 by default) of 2·max_relative_positions, itself
    max_position_embeddings when below 1 (issue 32: a config without the key)."""
    c = dict(config)
    buckets = c.get("position_buckets", -1)
    if isinstance(buckets, int) and not isinstance(buckets, bool) and buckets <= 0:
        span = c.get("max_relative_positions", -1)
        c["position_buckets"] = span if isinstance(span, int) and span >= 1 else c.get(
            "max_position_embeddings", 512)
    return c


MAPPING = family_table(
    "deberta_v3", hf="DebertaV2Model", keras="DebertaV3Backbone", model_type="deberta-v2",
    fields=(
        VOCAB, LAYERS, HEADS, WIDTH,
        Field("d_e", hf="embedding_size"),
        FFN, POSITIONS_512,
        Field("k_rel", keras="bucket_size", hf="position_buckets", keras_default=256),
    ),
    restrictions=(
        Sets("relative_attention", True, why="the formula counts DeBERTa's disentangled relative-position attention"),
        Sets("position_biased_input", False,
            why="DeBERTa-v3 adds no absolute positions to the input (no position table)"),
        Sets("share_att_key", True, why="DeBERTa-v3 shares the content key/query projections with the position path"),
        Sets("norm_rel_ebd", "layer_norm",
            why="DeBERTa-v3 normalises the relative position table once (one layer norm)"),
        Sets("type_vocab_size", 0, why="DebertaV3Backbone has no segment embeddings"),
        Sets("pos_att_type", ["p2c", "c2p"], why="DeBERTa-v3 attends position-to-content and content-to-position both"),
        Requires("relative_attention", (True,), absent_ok=False, why="the formula has DeBERTa-v3's relative table"),
        Requires(
            "position_biased_input",
            (False,),
            absent_ok=False,
            why="an absolute position table is not in the "
                "formula (transformers builds one unless this is false)",
        ),
        Requires("share_att_key", (True,), absent_ok=False, why="unshared keys add per-layer position projections"),
        Requires("norm_rel_ebd", ("layer_norm",), absent_ok=False, why="the formula normalises the relative table"),
        Requires("type_vocab_size", (0,), why="the formula has no token types"),
        Requires("conv_kernel_size", (0,), why="DeBERTa-v2's convolution layer is not in the formula"),
    ),
    hf_normalize=_relative_span,
)

register(keras_hub_backbone(
    "deberta_v3",
    formula=group(
        "deberta_v3",
        group(
            "embeddings",
            embedding("token", v, match="token_embedding"),
            layer_norm("norm", match="embeddings_layer_norm"),
        ),
        _free_table(relative_position_table()),
        _disentangled(encoder_stack(
            L, match=r"disentangled_attention_encoder_layer_\d+",
            note="disentangled attention: content and relative-position scores through the same "
                 "query/key projections (no extra weights per layer)",
        )),
    ),
    required=(v, d_e, M, d_f, L),
    optional={k_rel: 256, n: 512},
    restrictions=(
        *KERAS_FLOORED_HEADS,
        Fixed(zeta, 1, why="DeBERTa's query, key, value and output projections carry biases"),
        Holds(Divisible(d_e, M),
            why="DeBERTa's attention output is d_e → d_e whatever the heads: a floored head width would count "
                "wrong (prove refutes it)"),
    ),
    # DeBERTa's attention output is d_e → d_e whatever the heads (prove refutes a floor there).
    mapping=MAPPING,
    transformers=Transformers(caches=False, weights={
        "embeddings.token": "embeddings/word_embeddings",
        "embeddings.norm": "embeddings/LayerNorm",
        "relative_positions": "encoder/rel_embeddings|encoder/LayerNorm",
        "relative_positions.table": "rel_embeddings",
        "relative_positions.norm": "LayerNorm",
        "blocks": r"encoder/layer/\d+",
        "blocks.attention": "attention",
        "blocks.attention.query": "self/query_proj",
        "blocks.attention.key": "self/key_proj",
        "blocks.attention.value": "self/value_proj",
        "blocks.attention.output": "output/dense",
        "blocks.attention.scores": "self/scores",
        "blocks.norm_1": "attention/output/LayerNorm",
        "blocks.ffn.up": "intermediate/dense",
        "blocks.ffn.down": r"\d+/output/dense",
        "blocks.norm_2": r"\d+/output/LayerNorm",
    }),
))
