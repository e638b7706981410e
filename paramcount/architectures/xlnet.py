"""XLNet (Yang et al. 2019) as KerasHub builds it: XLNetBackbone.

Transformer-XL blocks for two-stream permutation language modelling. Positions are relative and
sinusoidal (computed, not learned); each layer projects them with its own d_e → M·d_k matrix
(``encoding``) and learns, per head, three bias vectors (content, position, segment: Transformer-
XL's u and v, and XLNet's segment bias) and a 2-row segment encoding (same / different segment).
The four attention projections carry no bias. The query stream starts from one learned mask
embedding of width d_e.
"""

from __future__ import annotations

from paramcount.components import (
    attention,
    embedding,
    feed_forward,
    layer_norm,
    sinusoidal_positions,
)
from paramcount.components.basic import EVEN_HEADS, HEADS_FIT
from paramcount.formula import group, leaf
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, d_e, d_f, d_k, v

register(Architecture(
    id="xlnet",
    title="XLNet backbone (keras_hub.models.XLNetBackbone): relative attention with per-layer "
          "position projection and segment encodings",
    source="Yang et al. 2019; Dai et al. 2019 (Transformer-XL); "
           "keras_hub/src/models/xlnet/xlnet_backbone.py",
    formula=group(
        "xlnet",
        group(
            "embeddings",
            embedding("token", v, match="word_embedding"),
            leaf("mask", d_e, match="mask_emb", kind="embedding",
                 note="the query stream's learned start vector (two-stream attention)"),
            sinusoidal_positions(),
        ),
        group(
            "blocks",
            attention(match="rel_attn", bias=0),
            leaf("position_projection", d_e * M * d_k, match="rel_attn/encoding", kind="attention",
                 note="projects the sinusoidal relative encodings, d_e → M·d_k, no bias"),
            leaf("attention_biases", 3 * M * d_k, kind="attention",
                 match="(content|positional|segment)_attention_bias",
                 note="per-head content (u), position (v) and segment biases"),
            leaf("segment_encoding", 2 * M * d_k, match="segment_encoding", kind="attention",
                 note="two per-head vectors: same segment, different segment"),
            layer_norm("norm_1", match="layer_norm_rel_attn"),
            feed_forward(),
            layer_norm("norm_2", match="layer_norm_ff"),
            times=L,
            match=r"xlnet_encoder_\d+",
        ),
    ),
    reference="reference_models.xlnet:backbone",
    counting="trainable weights of the backbone: token table, mask embedding, L blocks (bias-free "
             "attention, relative-position projection, per-head biases and segment encodings, "
             "two norms, feed-forward); no LM head",
    required=(v, d_e, M, d_f, L),
    fixed=EVEN_HEADS,
    constraints=(HEADS_FIT,),
    presets="xlnet",
    family="keras_hub",
    examples={
        "tiny": dict(v=100, d_e=32, M=4, d_f=64, L=2),
        "odd_sizes": dict(v=997, d_e=45, M=5, d_f=13, L=3),
    },
))
