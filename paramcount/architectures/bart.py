"""BART (Lewis et al. 2020) as KerasHub builds it: BartBackbone.

A post-LN encoder-decoder with L layers on each side: one token table shared by both stacks,
separate learned position tables (n each) and embedding norms for encoder and decoder, decoder
blocks with cross-attention over the encoder output, biases everywhere. The LM head of
BartSeq2SeqLM is the token embedding, transposed (tied), so the backbone is the whole model.
"""

from __future__ import annotations

from paramcount.components import decoder_block, embedding, layer_norm, position_embedding
from paramcount.components.basic import EVEN_HEADS, HEADS_FIT
from paramcount.components.encoders import encoder_stack
from paramcount.formula import group
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, d_e, d_f, n, v, zeta

register(Architecture(
    id="bart",
    title="BART backbone (keras_hub.models.BartBackbone): encoder-decoder, learned positions, "
          "shared token table",
    source="Lewis et al. 2020; keras_hub/src/models/bart/bart_backbone.py",
    formula=group(
        "bart",
        embedding("token_embedding", v, match="token_embedding",
                  note="v × d_e table shared by encoder and decoder (and the tied LM head)"),
        group(
            "encoder",
            position_embedding(n, match="encoder_position_embedding", name="positions"),
            layer_norm("embedding_norm", match="encoder_embeddings_layer_norm"),
            encoder_stack(L, match=r"transformer_encoder_layer_\d+"),
        ),
        group(
            "decoder",
            position_embedding(n, match="decoder_position_embedding", name="positions"),
            layer_norm("embedding_norm", match="decoder_embeddings_layer_norm"),
            decoder_block(times=L, cross_attention=True, match=r"transformer_decoder_layer_\d+"),
        ),
    ),
    reference="reference_models.bart:backbone",
    counting="trainable weights of the backbone: the shared token table, per-stack position "
             "tables (n each; the original checkpoints' 2 offset rows are trimmed) and embedding "
             "norms, L encoder and L decoder blocks; the LM head is tied (no weights)",
    required=(v, n, d_e, M, d_f, L),
    fixed={**EVEN_HEADS, zeta: 1},
    constraints=(HEADS_FIT,),
    presets="bart",
    family="keras_hub",
    keras_hub_metadata=True,
    examples={
        "tiny": dict(v=100, n=16, d_e=32, M=4, d_f=64, L=2),
        "odd_sizes": dict(v=997, n=7, d_e=45, M=5, d_f=13, L=3),
    },
))
