"""RoBERTa (Liu et al. 2019) as KerasHub builds it: RobertaBackbone.

BERT's encoder without segment embeddings or pooler: token and learned-position tables, an
embedding layer norm, L post-LN encoder blocks.
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import L
from paramcount.core.symbols import d_e
from paramcount.core.symbols import n
from paramcount.families._defaults import family_table
from paramcount.families._encoders import learned_positions_family
from paramcount.families._lineages import ABSOLUTE_POSITIONS
from paramcount.families._lineages import ENCODER_FIELDS
from paramcount.families._lineages import TINY_AND_ODD_N
from paramcount.families._lineages import absolute_positions
from paramcount.families._lineages import encoder_only
from paramcount.families._lineages import mlm_names
from paramcount.families.bert import ENCODER_FREE
from paramcount.families.bert import HF_ENCODER
from paramcount.families.bert import HF_POOLER
from paramcount.model.components.basic import WHOLE_HEADS
from paramcount.model.components.basic import dense
from paramcount.model.components.basic import embedding
from paramcount.model.components.encoders import encoder_stack
from paramcount.model.components.encoders import mlm_decoder
from paramcount.model.components.encoders import mlm_head
from paramcount.model.components.encoders import token_position_embeddings
from paramcount.model.frameworks import Delta
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.mapping import Table
from paramcount.model.registry import Architecture
from paramcount.model.registry import register

IDS = ("roberta", "roberta_masked_lm")  # the ids this folder registers


def roberta_formula(name: str):
    """RoBERTa's tree (XLM-RoBERTa reuses it: same layers)."""
    return group(name, token_position_embeddings(), encoder_stack(L))


def table(model_type: str, prefix: str, keras_prefix: str, arch_id: str) -> Table:
    """symbol ↔ <keras_prefix>Backbone argument ↔ <prefix>Config key (RoBERTa and XLM-R share
    it). HF's max_position_embeddings counts fairseq's two padding-offset rows (514 for n = 512):
    KerasHub's converters subtract them, and so does the table (hf_offset)."""
    return family_table(
        arch_id, hf=f"{prefix}Model", keras=f"{keras_prefix}Backbone", model_type=model_type,
        tasks={f"{prefix}ForMaskedLM": f"{arch_id}_masked_lm"},
        fields=(
            *ENCODER_FIELDS,
            Field("n", keras="max_sequence_length", hf="max_position_embeddings",
                  hf_offset=2, keras_default=512),
        ),
        restrictions=(
            Sets("type_vocab_size", 1, why="RoBERTa has no segment embeddings: one token type"),
            absolute_positions("RoBERTa"),
            *encoder_only("RobertaBackbone"),
            Sets("tie_word_embeddings", True, why="RoBERTa's masked-LM decoder is the token table transposed (tied)"),
            Requires(
                "type_vocab_size",
                (1,),
                why="the formula has no token types; transformers' one-row table is a delta",
            ),
            Requires("tie_word_embeddings", (True,), why="the MLM decoder counts only as the token embedding, tied"),
            ABSOLUTE_POSITIONS,
            Requires("add_cross_attention", (False,), why="the encoder here has no cross-attention"),
        ),
        free=ENCODER_FREE,
    )


# PyTorch names of RobertaModel and XLMRobertaModel: BertModel's (see bert.py).
HF_MLM_HEAD = mlm_names("lm_head", "dense", "layer_norm", "lm_head/bias", decoder=None)

_POSITIONS = Delta(
    "embeddings.position",
    embedding("position", n + 2, note="learned absolute positions, n + 2 rows: fairseq's padding "
                                      "offset (position ids start at pad + 1), kept by transformers"),
    "transformers keeps fairseq's 2 offset position rows; KerasHub's converter trims them")
_TOKEN_TYPE = Delta(
    "embeddings.segment",
    embedding("segment", 1, note="a one-row token-type table (type_vocab_size = 1), added to "
                                 "every position; KerasHub folds it into the position table"),
    "transformers keeps a one-row token-type table; KerasHub has none (its converter adds the "
    "row to the positions)")
_POOLER = Delta(
    "pooler",
    dense("pooler", d_e, d_e, note="transformers' base model builds a tanh pooler by default",
          kind="head").with_cost(tokens=1),  # the first token of each sequence
    "the transformers base model has a pooler (add_pooling_layer=True); KerasHub's backbone none")
BASE_DELTAS = (_POSITIONS, _TOKEN_TYPE, _POOLER)
MLM_DELTAS = (_POSITIONS, _TOKEN_TYPE)  # ForMaskedLM builds the model without its pooler
# RobertaSelfAttention (XLMRobertaSelfAttention: the same code) refuses a width the heads do
# not split ("The hidden size ... is not a multiple of the number of attention heads": its
# config has no embedding_size to skip the check, unlike ALBERT's and ELECTRA's); KerasHub
# floors the head width
HF_CONSTRAINTS = (WHOLE_HEADS,)


# The settings this family's architectures share; each call adds (or overrides) the rest.
roberta_family = learned_positions_family(
    "RoBERTa",
    keras_hub_metadata=True,
    examples=TINY_AND_ODD_N,
)



def encoder(base: str, *, why: str, **fields) -> Architecture:
    """A RoBERTa-layer backbone ``base`` (RoBERTa, XLM-RoBERTa): its tree, Keras builder and
    presets named by it, transformers' base model with its pooler and the deltas of its class,
    whose refusal of a width the heads do not split is ``why``."""
    return roberta_family(id=base, formula=roberta_formula(base), reference=f"reference_models.{base}:backbone",
                          presets=base, transformers=_transformers({**HF_ENCODER, **HF_POOLER}, BASE_DELTAS, why),
                          **fields)


def masked_lm(base: str, *, why: str, **fields) -> Architecture:
    """The masked LM on the backbone ``base``: its tree and the MLM head, whose output projection
    is the token embedding (tied); KerasHub's metadata counts no task model."""
    return roberta_family(
        id=f"{base}_masked_lm",
        formula=group(f"{base}_masked_lm", *roberta_formula(base).children, mlm_head()),
        reference=f"reference_models.{base}:masked_lm",
        counting="trainable weights of backbone and MLM head (dense, layer norm, output bias); the "
                 "head's output projection is the token embedding (tied), counted once",
        presets=base,
        transformers=_transformers({**HF_ENCODER, **HF_MLM_HEAD, "mlm_head.decoder": "decoder/weight"},
                                   (*MLM_DELTAS, mlm_decoder()), why),
        keras_hub_metadata=False,
        **fields,
    )


def _transformers(weights: dict, deltas: tuple[Delta, ...], why: str) -> Transformers:
    return Transformers(caches=False, weights=weights, deltas=deltas,
                        restrictions=(*Holds.each(HF_CONSTRAINTS, binds="transformers", why=why),))


# transformers' RobertaSelfAttention refuses a width the heads do not split (HF_CONSTRAINTS)
_WHY = ("transformers' RobertaSelfAttention refuses a hidden size that is not a multiple of the heads (no "
        "embedding_size to skip the check); KerasHub floors")
MAPPING = table("roberta", "Roberta", "Roberta", "roberta")

register(encoder(
    "roberta",
    mapping=MAPPING,
    why=_WHY,
))

register(masked_lm(
    "roberta",
    title="RoBERTa masked LM (keras_hub.models.RobertaMaskedLM): backbone + MLM head",
    source="Liu et al. 2019; keras_hub/src/models/roberta/roberta_masked_lm.py",
    mapping=MAPPING,
    why=_WHY,
))
