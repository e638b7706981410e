"""The paper's generic transformer language models (its params_Transformer case).

A stack of ``L`` KerasHub ``TransformerEncoder`` or ``TransformerDecoder`` blocks over token and
learned position embeddings, with an untied output layer to the vocabulary.

The paper's formula leaves the head widths d_k, d_v and the projection bias ζ free; KerasHub's
blocks fix them (d_k = d_v = d_e // M, floored; ζ = 1), and those are the defaults here. Other
values build the same blocks with their attention given key_dim = d_k, value_dim = d_v and
use_bias = ζ (``keras.layers.MultiHeadAttention``'s own options; see the reference). The
feed-forward layers keep their biases either way.
"""

from __future__ import annotations

from functools import partial

from paramcount.core.formula import group
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import d_v
from paramcount.core.symbols import n
from paramcount.core.symbols import v
from paramcount.core.symbols import zeta
from paramcount.families._lineages import HEADS_FIT_WIDTH
from paramcount.model.components import decoder_block
from paramcount.model.components import dense
from paramcount.model.components import encoder_block
from paramcount.model.components.basic import EVEN_HEADS
from paramcount.model.components.encoders import token_position_embeddings
from paramcount.model.registry import Architecture
from paramcount.model.registry import register

IDS = ("transformer_decoder", "transformer_encoder")  # the ids this folder registers


# The settings this family's architectures share; each call adds (or overrides) the rest.
_architecture = partial(
    Architecture,
    required=(v, n, d_e, M, d_f, L),
    # keras_hub's blocks use key_dim = d_e // M (floored: d_e = 256, M = 3 gives 3 heads of 85,
    # keras-io's text_generation_gpt) and always give the projections biases: the defaults.
    optional={d_k: EVEN_HEADS[d_k], d_v: d_k, zeta: 1},
    restrictions=(HEADS_FIT_WIDTH,),
    counting="trainable weights: token and position embeddings, L blocks, untied output layer",
    family="paper",
    examples={
        "tiny": dict(v=100, n=16, d_e=32, M=4, d_f=64, L=2),
        "paper_base": dict(v=30000, n=512, d_e=768, M=12, d_f=3072, L=12),
        "odd_sizes": dict(v=997, n=7, d_e=45, M=5, d_f=13, L=3),
        "floored_heads": dict(v=97, n=9, d_e=20, M=3, d_f=11, L=2),
        "free_heads_no_bias": dict(v=97, n=9, d_e=20, M=3, d_k=7, d_v=5, d_f=11, L=2, zeta=0),
    },
)


def _lm(block):
    return group(
        "transformer_lm",
        token_position_embeddings(norm=None, match="embeddings"),
        block,
        dense("head", d_e, v, match="lm_head", kind="head"),
    )


register(_architecture(
    id="transformer_encoder",
    formula=_lm(encoder_block(times=L)),
    reference="reference_models.transformer:encoder",
))

register(_architecture(
    id="transformer_decoder",
    formula=_lm(decoder_block(times=L)),
    reference="reference_models.transformer:decoder",
    examples={
        **_architecture.keywords["examples"],
        # keras-io's text_generation_gpt (3,255,938): 3 heads floored to 85 in a 256-wide model
        "keras_io_text_generation_gpt": dict(v=5000, n=128, d_e=256, M=3, d_f=128, L=2),
    },
))
