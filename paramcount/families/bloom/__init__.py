"""BLOOM (BigScience 2022) as KerasHub builds it: keras_hub.models.BloomBackbone.

Token embedding followed by a layer norm (BLOOM's embedding norm), ALiBi instead of position
embeddings (no parameters), L pre-LN blocks with biases on every projection, a final layer norm.
"""

from __future__ import annotations

from paramcount.core.hparams import Divisible
from paramcount.core.hparams import Relation
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Limit
from paramcount.core.restrictions import Requires
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import v
from paramcount.core.symbols import zeta
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import HEADS_N_HEAD
from paramcount.families._lineages import KERAS_FLOORED_HEADS
from paramcount.families._lineages import LAYERS_N_LAYER
from paramcount.families._lineages import TINY_AND_ODD
from paramcount.families._lineages import VOCAB
from paramcount.families._lineages import WIDTH
from paramcount.families._lineages import pinned
from paramcount.model.components.decoders import alibi_decoder
from paramcount.model.components.decoders import alibi_decoder_names
from paramcount.model.components.hf_decoder import tied_head
from paramcount.model.frameworks import Delta
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("bloom",)  # the ids this folder registers


# symbol ↔ BloomBackbone argument ↔ BloomConfig key. transformers has no key for the MLP width:
# BloomMLP is always 4·hidden_size wide (a config's ``n_inner`` is not read by it).
MAPPING = family_table(
    "bloom", hf="BloomForCausalLM", keras="BloomBackbone",
    fields=(VOCAB, LAYERS_N_LAYER, HEADS_N_HEAD, WIDTH, Field('d_f', keras='intermediate_dim', hf_default=4 * d_e)),
    restrictions=(
        *pinned(("tie_word_embeddings", True, "BLOOM's LM head is the token table transposed (tied)",
                 "BLOOM's LM head is the token embedding (tied), as in KerasHub's BloomCausalLM")),
        Requires(
            "n_inner",
            (None,),
            why="transformers' BloomMLP ignores n_inner and is always "
                "4·hidden_size wide: a config setting it describes no model transformers builds",
        ),
    ),
)

# BloomForCausalLM's names (under ``transformer.``): the ALiBi decoder's, with the embedding's
# layer norm; query, key and value in one fused query_key_value (3·d_e outputs, interleaved per
# head: q, k, v of head 1, then of head 2, ...). The LM head is the token embedding (tied), listed
# once.
TRANSFORMERS = Transformers(
    weights={**alibi_decoder_names(embedding_norm="word_embeddings_layernorm"), "head": "lm_head"},
    deltas=(Delta("head", tied_head(), "BloomForCausalLM carries the LM head the backbone leaves "
                  "out: the token table, tied (no weights; it multiplies)"),),
    restrictions=(
        Limit(
            Relation(d_f, "==", 4 * d_e,
            reason="transformers' BloomMLP is always 4·hidden_size wide"),
        ),
    ),
)

register(keras_hub_backbone(
    "bloom",
    formula=alibi_decoder(
        "bloom", embedding_norm="embedding_layernorm", attention_match="self_attention",
        norm_names=("pre_attention_layernorm", "post_attention_layernorm"),
        ffn_names=("mlp_intermediate_dense", "mlp_output_dense")),
    required=(v, d_e, M, d_f, L),
    restrictions=(
        *KERAS_FLOORED_HEADS,
        Fixed(zeta, 1, why="BLOOM has biases on every attention projection"),
        Holds(Divisible(d_e, M), why="BloomAttention refuses a hidden size that the heads do not divide"),
    ),
    mapping=MAPPING,
    transformers=TRANSFORMERS,
    examples={
        **TINY_AND_ODD,
        # transformers builds only d_f = 4·d_e: this one it checks too
        "tiny_4x": dict(v=61, d_e=24, M=3, d_f=96, L=2),
    },
))
