"""The original Transformer (Vaswani et al. 2017): an encoder-decoder for translation.

Source and target token embeddings plus sinusoidal positions (no parameters); L_enc post-LN
encoder blocks (self-attention, feed-forward, each followed by add & norm); L_dec decoder blocks
with masked self-attention, cross-attention over the encoder's output and a feed-forward network;
a linear output layer to the target vocabulary. No final layer norm (post-LN).

Options (0/1): ``shared`` — one embedding table for source and target (needs v_src = v_tgt), as in
the paper's WMT EN-DE models; ``tied`` — the output projection is the target embedding, transposed
("we share the same weight matrix between the two embedding layers and the pre-softmax linear
transformation", section 3.4).
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.formula import zero
from paramcount.core.hparams import Relation
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.symbols import L_dec
from paramcount.core.symbols import L_enc
from paramcount.core.symbols import M
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import shared
from paramcount.core.symbols import tied
from paramcount.core.symbols import v_src
from paramcount.core.symbols import v_tgt
from paramcount.core.symbols import zeta
from paramcount.families._lineages import HEADS_FIT_WIDTH
from paramcount.model.components import decoder_block
from paramcount.model.components import embedding
from paramcount.model.components import encoder_block
from paramcount.model.components import sinusoidal_positions
from paramcount.model.components.basic import EVEN_HEADS
from paramcount.model.registry import Architecture
from paramcount.model.registry import register

IDS = ("transformer",)  # the ids this folder registers


register(Architecture(
    id="transformer",
    formula=group(
        "transformer",
        group(
            "embeddings",
            embedding("source", v_src, match="source_embedding",
                      note="v_src × d_e; also the target's table when shared = 1"),
            leaf("target", (1 - shared) * v_tgt * d_e, match="target_embedding", kind="embedding",
                 note="v_tgt × d_e; 0 when shared = 1 (the source table is reused)"),
            sinusoidal_positions(),
            zero("scale", "embeddings multiplied by √d_e: a constant", kind="embedding"),
        ),
        encoder_block(times=L_enc, name="encoder", match=r"encoder_layer_\d+"),
        decoder_block(times=L_dec, name="decoder", match=r"decoder_layer_\d+",
                      cross_attention=True),
        leaf("head", (1 - tied) * (d_e * v_tgt + v_tgt), match="head", kind="head",
             note="Dense(d_e → v_tgt) with bias; 0 when tied = 1: the target embedding, "
                  "transposed, counted once"),
    ),
    required=(v_src, v_tgt, d_e, M, d_f, L_enc, L_dec),
    optional={shared: 0, tied: 0},
    restrictions=(
        *Fixed.each(EVEN_HEADS, why="keras_hub's blocks use key_dim = d_e // M and always give the projections biases"),
        Fixed(zeta, 1, why="keras_hub's blocks use key_dim = d_e // M and always give the projections biases"),
        HEADS_FIT_WIDTH,
        Holds(
            Relation(v_src, "==", v_tgt, when=shared,
            reason="one shared table serves a joint source-target vocabulary"),
        ),
    ),
    reference="reference_models.transformer_seq2seq:transformer",
    presets="transformer_seq2seq",
    family="paper",
))
