"""ESM-2 (Lin et al. 2023) protein language model as KerasHub builds it: ESMBackbone.

A BERT-shaped encoder over a 33-token amino-acid vocabulary: rotary positions (or, as in ESM-1b,
a learned absolute table: ``abs_pos`` = 1), one bias switch ζ for every dense layer, an optional
embedding layer norm (``emb_norm``, ESM-1b's ``emb_layer_norm_before``) and always a final layer
norm. Blocks are pre-LN; no token-type table, no pooler, no contact or LM head.
"""

from __future__ import annotations

import sympy

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import abs_pos
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import emb_norm
from paramcount.core.symbols import n
from paramcount.core.symbols import v
from paramcount.core.symbols import zeta
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import ENCODER_FIELDS
from paramcount.families._lineages import KERAS_FLOORED_HEADS
from paramcount.families._lineages import encoder_only
from paramcount.families._lineages import no_cross_attention
from paramcount.model.components import attention
from paramcount.model.components import dense
from paramcount.model.components import embedding
from paramcount.model.components import feed_forward
from paramcount.model.components import layer_norm
from paramcount.model.frameworks import Delta
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("esm",)  # the ids this folder registers


_POSITIONS = {"rotary": 0, "absolute": 1}
# symbol ↔ ESMBackbone argument ↔ EsmConfig key. Both frameworks name the position type; ζ has
# no HF key (transformers' ESM always has biases: Always below).
MAPPING = family_table(
    # EsmForMaskedLM (the published checkpoints) adds an LM head paramcount's ESM does not have
    # (KerasHub's ESMMaskedPLM is not registered): refused by name.
    "esm", hf="EsmModel", keras="ESMBackbone",
    fields=(
        *ENCODER_FIELDS,
        Field("n", keras="max_sequence_length", hf="max_position_embeddings",
              keras_default=1024, hf_default=1026),
        Field("zeta", keras="use_bias", flag=True, keras_default=1),
        Field("abs_pos", keras="position_embedding_type", hf="position_embedding_type",
              keras_values=_POSITIONS, hf_values=_POSITIONS, keras_default=0, hf_default=1),
        Field("emb_norm", keras="use_pre_layer_norm", hf="emb_layer_norm_before", flag=True,
              keras_default=0, hf_default=0),
    ),
    restrictions=(
        Sets("is_folding_model", False, why="the formula counts ESM-2's language model, not ESMFold's folding trunk"),
        *encoder_only("ESMBackbone"),
        Requires("is_folding_model", (False,), why="ESMFold's folding trunk is not in the formula"),
        no_cross_attention("ESM"),
    ),
)

register(keras_hub_backbone(
    "esm",
    formula=group(
        "esm",
        group(
            "embeddings",
            embedding("token", v, match="token_embedding"),
            leaf("positions", abs_pos * n * d_e, match="position_embedding", kind="position",
                 note="learned n × d_e table when abs_pos = 1; rotary (no weights) when 0"),
            leaf("norm", emb_norm * 2 * d_e, match="emb_layer_norm", kind="norm",
                 note="layer norm (γ, β) before the first block, only when emb_norm = 1"),
        ),
        group(
            "blocks",
            layer_norm("norm_1", match="attention_norm"),
            attention(match="attention_layer", bias=zeta,
                      names=("q_dense_layer", "k_dense_layer", "v_dense_layer", "o_dense_layer")),
            layer_norm("norm_2", match="ffn_norm"),
            feed_forward(bias=zeta),
            times=L,
            match=r"transformer_layer_\d+",
        ),
        layer_norm("final_norm", match="output_layer_norm"),
    ),
    required=(v, d_e, M, d_f, L),
    optional={zeta: 1, abs_pos: 0, emb_norm: 0, n: 1024},
    restrictions=(
        *KERAS_FLOORED_HEADS,
        Holds(Divisible((1 - abs_pos) * d_e, 2 * M), binds="forward",
              why="ESM's rotary positions (abs_pos = 0) rotate pairs of each head's channels: a "
                  "forward needs an even head width (no build does)"),
        Holds(Divisible(d_e, M),
            why="the heads split the width exactly: transformers' EsmSelfAttention refuses a hidden size they do "
                "not divide"),
    ),
    # KerasHub floors d_e // M, but the attention output is then not the floored M·d_k → d_e
    # (prove refutes it): an exact split only, as the checkpoints have.
    mapping=MAPPING,
    # the memory-and-compute measurement's forward masks padding with pad_token_id, which the
    # config class leaves unset: ESM-2's own, 1 (no count depends on which id it is)
    transformers=Transformers(caches=False, cost_config={"pad_token_id": 1},
        # EsmConfig has no bias key: the class cannot switch the biases off
        restrictions=(
            Fixed(zeta, 1, binds="transformers", why="transformers' ESM has biases on every dense layer"),
        ),
        weights={
            "embeddings.token": "embeddings/word_embeddings",
            "embeddings.positions": "embeddings/position_embeddings",
            "embeddings.norm": "embeddings/layer_norm",
            "blocks": r"encoder/layer/\d+",
            "blocks.norm_1": "attention/LayerNorm",
            "blocks.attention": "attention",
            "blocks.attention.query": "self/query",
            "blocks.attention.key": "self/key",
            "blocks.attention.value": "self/value",
            "blocks.attention.output": "output/dense",
            "blocks.norm_2": r"\d+/LayerNorm",
            "blocks.ffn.up": "intermediate/dense",
            "blocks.ffn.down": r"\d+/output/dense",
            "final_norm": "emb_layer_norm_after",
            "pooler": "pooler/dense",
            "contact_head": "contact_head/regression",
            "rotary_inv_freq": "rotary_embeddings/inv_freq",
        },
        deltas=(
            Delta("pooler", dense("pooler", d_e, d_e, note="EsmModel's tanh pooler", kind="head").with_cost(tokens=1),
                  "transformers' EsmModel builds a pooler (add_pooling_layer=True); KerasHub's "
                  "ESMBackbone none"),
            Delta("contact_head", leaf("contact_head", L * M + 1,
                                       note="logistic regression over the L·M attention maps",
                                       kind="head", macs=0),  # run only for return_contacts
                  "transformers' EsmModel always builds the contact-prediction head (a "
                  "Linear(L·M, 1) with bias); KerasHub has none"),
            Delta("rotary_inv_freq",
                  leaf("rotary_inv_freq", (1 - abs_pos) * sympy.ceiling(d_k / 2), trainable=False,
                       note="rotary inverse frequencies, arange(0, d_k, 2): a buffer",
                       kind="position"),
                  "transformers' EsmModel keeps its rotary inverse frequencies as a persistent "
                  "buffer (saved, not trained); KerasHub computes them"),
        ),
    ),
))
