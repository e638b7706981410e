"""ALBERT (Lan et al. 2020) as KerasHub builds it: AlbertBackbone.

Two parameter-reduction ideas, both visible in the tree:

- factorised embeddings: the token, position and segment tables are d_emb wide (d_emb ≪ d_e),
  normalised at that width, then projected d_emb → d_e by one dense layer;
- cross-layer sharing: the L layers run through L_g groups of L_r distinct encoder blocks, each
  group called L/L_g times. A shared block counts once, so L itself appears in no term: the count
  depends on L_g·L_r, not on L (the published checkpoints share one block across all layers).
"""

from __future__ import annotations

import dataclasses
from functools import partial

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Holds
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import n
from paramcount.core.symbols import s
from paramcount.core.symbols import v
from paramcount.families._defaults import family_table
from paramcount.families._lineages import EMBEDDING_WIDTH_128
from paramcount.families._lineages import FFN
from paramcount.families._lineages import HEADS
from paramcount.families._lineages import LAYERS
from paramcount.families._lineages import POSITIONS_512
from paramcount.families._lineages import SEGMENTS
from paramcount.families._lineages import VOCAB
from paramcount.families._lineages import WIDTH
from paramcount.families._lineages import biased_floored_heads
from paramcount.families._lineages import mlm_names
from paramcount.families._lineages import pinned
from paramcount.model.components import dense
from paramcount.model.components import layer_norm
from paramcount.model.components.encoders import L_g
from paramcount.model.components.encoders import L_r
from paramcount.model.components.encoders import d_emb
from paramcount.model.components.encoders import encoder_stack
from paramcount.model.components.encoders import factorised_embeddings
from paramcount.model.components.encoders import full_width_attention_output
from paramcount.model.components.encoders import mlm_decoder
from paramcount.model.cost import runs
from paramcount.model.frameworks import Delta
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import Architecture
from paramcount.model.registry import register

IDS = ("albert", "albert_masked_lm")  # the ids this folder registers


_BACKBONE = (
    factorised_embeddings(),
    # each stored block computes once for each of the L/L_g layers that share it
    runs(encoder_stack(
        L_g * L_r, match=r"group_\d+_inner_layer_\d+",
        note="cross-layer sharing: L_g·L_r distinct blocks, each shared by L/L_g layers; "
             "a shared block counts once (L does not enter the count)",
    ), L / L_g),
    dense("pooler", d_e, d_e, match="pooled_dense", kind="head").with_cost(tokens=1),
)

# symbol ↔ AlbertBackbone argument ↔ AlbertConfig key.
MAPPING = family_table(
    "albert", hf="AlbertModel", keras="AlbertBackbone",
    fields=(
        VOCAB,
        LAYERS,
        HEADS,
        EMBEDDING_WIDTH_128,
        WIDTH,
        FFN,
        Field("L_g", keras="num_groups", hf="num_hidden_groups", keras_default=1, hf_default=1),
        Field("L_r", keras="num_inner_repetitions", hf="inner_group_num", keras_default=1,
              hf_default=1),
        POSITIONS_512,
        SEGMENTS,
    ),
    # AlbertForPreTraining adds a sentence-order head KerasHub has no class for: refused.
    tasks={"AlbertForMaskedLM": "albert_masked_lm"},
    restrictions=pinned((
        "tie_word_embeddings", True,
        "ALBERT's masked-LM decoder is the token table transposed (tied), as the formula counts it",
        "AlbertForMaskedLM's decoder counts only as the token table, tied")),
)

_HF_BACKBONE = {
    "embeddings.token": "embeddings/word_embeddings",
    "embeddings.position": "embeddings/position_embeddings",
    "embeddings.segment": "embeddings/token_type_embeddings",
    "embeddings.norm": "embeddings/LayerNorm",
    "embeddings.projection": "embedding_hidden_mapping_in",
    # albert_layer_groups.g.albert_layers.r: the L_g·L_r distinct blocks, as in KerasHub
    "blocks": r"albert_layer_groups/\d+/albert_layers/\d+",
    "blocks.attention": "attention",
    "blocks.attention.query": "query",
    "blocks.attention.key": "key",
    "blocks.attention.value": "value",
    "blocks.attention.output": "dense",
    "blocks.norm_1": "attention/LayerNorm",
    "blocks.ffn.up": "ffn",
    "blocks.ffn.down": "ffn_output",
    "blocks.norm_2": "full_layer_layer_norm",
    "pooler": "pooler",
}
_HF_OUTPUT = full_width_attention_output("AlbertAttention")
assert _HF_OUTPUT.term is not None
_HF_OUTPUT = dataclasses.replace(_HF_OUTPUT, term=runs(_HF_OUTPUT.term, L / L_g))  # shared, as above

# The settings this family's architectures share; each call adds (or overrides) the rest.
_architecture = partial(
    Architecture,
    required=(v, n, d_emb, d_e, M, d_f, L),
    optional={s: 2, L_g: 1, L_r: 1},
    restrictions=(
        *biased_floored_heads("ALBERT"),
        Holds(Divisible(L, L_g), why="the L layers run through L_g groups, each called L/L_g times"),
    ),
    presets="albert",
    family="keras_hub",
    mapping=MAPPING,
    examples={
        "tiny": dict(v=100, n=16, d_emb=8, d_e=32, M=4, d_f=64, L=2),
        "odd_sizes": dict(v=997, n=7, d_emb=5, d_e=45, M=5, d_f=13, L=3, s=3),
        "grouped": dict(v=101, n=9, d_emb=6, d_e=24, M=3, d_f=40, L=6, L_g=3, L_r=2),
        "deep_shared": dict(v=50, n=8, d_emb=4, d_e=16, M=2, d_f=24, L=12, L_g=2, L_r=1),
        # heads that do not split the width: KerasHub floors them, transformers' output
        # projection stays d_e wide (the delta below)
        "uneven_heads": dict(v=60, n=8, d_emb=6, d_e=30, M=4, d_f=20, L=2),
    },
)

register(_architecture(
    id="albert",
    formula=group("albert", *_BACKBONE),
    reference="reference_models.albert:backbone",
    keras_hub_metadata=True,
    transformers=Transformers(caches=False, weights=_HF_BACKBONE, deltas=(_HF_OUTPUT,)),
))

register(_architecture(
    id="albert_masked_lm",
    formula=group(
        "albert_masked_lm",
        *_BACKBONE,
        group(
            "mlm_head",
            dense("transform", d_e, d_emb, match="intermediate_dense",
                  note="the head narrows d_e back to the factorised width d_emb"),
            layer_norm("norm", d_emb, match="intermediate_layer_norm"),
            leaf("output_bias", v, match="output_bias",
                 note="the output projection is the d_emb-wide token table (tied); only its "
                      "bias is new", macs=0),
            match="mlm_head",
            kind="head",
        ),
    ),
    reference="reference_models.albert:masked_lm",
    transformers=Transformers(caches=False,
        # the output bias: decoder.bias is this same parameter (tied), named once
        weights={**{k: p for k, p in _HF_BACKBONE.items() if k != "pooler"},
                 **mlm_names("predictions", "dense", "LayerNorm")},
        deltas=(_HF_OUTPUT, mlm_decoder(d_emb),
                Delta("pooler", None, "AlbertForMaskedLM builds AlbertModel(add_pooling_layer="
                                      "False); KerasHub's AlbertMaskedLM keeps the pooler")),
    ),
))
