"""ESM-2 (Lin et al. 2023) protein language model as KerasHub builds it: ESMBackbone.

A BERT-shaped encoder over a 33-token amino-acid vocabulary: rotary positions (or, as in ESM-1b,
a learned absolute table: ``abs_pos`` = 1), one bias switch ζ for every dense layer, an optional
embedding layer norm (``emb_norm``, ESM-1b's ``emb_layer_norm_before``) and always a final layer
norm. Blocks are pre-LN; no token-type table, no pooler, no contact or LM head.
"""

from __future__ import annotations

from paramcount.components import attention, embedding, feed_forward, layer_norm
from paramcount.components.basic import EVEN_HEADS
from paramcount.formula import group, leaf
from paramcount.hparams import Divisible
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, abs_pos, d_e, d_f, emb_norm, n, v, zeta

register(Architecture(
    id="esm",
    title="ESM-2 backbone (keras_hub.models.ESMBackbone): protein encoder, rotary or absolute "
          "positions",
    source="Lin et al. 2023 (ESM-2), Rives et al. 2021 (ESM-1b); "
           "keras_hub/src/models/esm/esm_backbone.py",
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
    reference="reference_models.esm:backbone",
    counting="trainable weights of the backbone: token table (positions only when absolute), "
             "optional embedding norm, L pre-LN blocks, final norm; no LM or contact head",
    required=(v, d_e, M, d_f, L),
    optional={zeta: 1, abs_pos: 0, emb_norm: 0, n: 1024},
    fixed=EVEN_HEADS,
    # KerasHub floors d_e // M, but the attention output is then not the floored M·d_k → d_e
    # (prove refutes it): an exact split only, as the checkpoints have.
    constraints=(Divisible(d_e, M),),
    presets="esm",
    family="keras_hub",
    keras_hub_metadata=True,
    examples={
        "tiny": dict(v=33, d_e=32, M=4, d_f=64, L=2),
        "tiny_esm1b_style": dict(v=33, d_e=32, M=4, d_f=64, L=2, abs_pos=1, emb_norm=1, n=40),
        "odd_no_bias": dict(v=37, d_e=45, M=5, d_f=13, L=3, zeta=0, abs_pos=1, n=7),
    },
))
