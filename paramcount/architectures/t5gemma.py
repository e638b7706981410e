"""T5Gemma (Zhang et al. 2025) as KerasHub builds it: T5GemmaBackbone.

An encoder-decoder adapted from Gemma 2: each side is a stack of Gemma 2 blocks (grouped-query
attention with head width d_k, pre- and post-norms around attention and feed-forward, all RMS
norms with a scale only, GeGLU feed-forward, rotary positions, interleaved local/global attention
that costs nothing extra). Decoder blocks add cross-attention over the encoder output (its keys
and values project from the encoder width d_e) with its own pre/post norms. Encoder and decoder
may differ in every size ("unbalanced" 9B-2B), so the decoder has its own symbols, defaulting to
the encoder's. Encoder and decoder keep separate token tables; the decoder's LM head is its
table, transposed, unless untied.
"""

from __future__ import annotations

from paramcount.components import (
    attention,
    embedding,
    gated_feed_forward,
    rms_norm,
    rotary_positions,
)
from paramcount.components.encoders import tied
from paramcount.formula import group, leaf
from paramcount.hparams import Divisible
from paramcount.registry import Architecture, register
from paramcount.symbols import (
    L_dec,
    L_enc,
    M,
    M_dec,
    M_kv,
    M_kv_dec,
    d_e,
    d_e_dec,
    d_f,
    d_f_dec,
    d_k,
    d_k_dec,
    d_v,
    v,
    zeta,
)


def _norms(prefix: str, width, *parts: str):
    return [rms_norm(f"{p}_norm", width, match=f"{prefix}{p}_layernorm") for p in parts]


register(Architecture(
    id="t5gemma",
    title="T5Gemma backbone (keras_hub.models.T5GemmaBackbone): Gemma 2 blocks as encoder and "
          "decoder, sizes per side",
    source="Zhang et al. 2025, 'Encoder-Decoder Gemma'; Gemma Team 2024 (Gemma 2); "
           "keras_hub/src/models/t5gemma/t5gemma_backbone.py",
    formula=group(
        "t5gemma",
        embedding("encoder_token_embedding", v, d_e, match="encoder_token_embedding",
                  note="v × d_e encoder table"),
        leaf("decoder_token_embedding", v * d_e_dec, match="decoder_token_embedding/embeddings",
             kind="embedding",
             note="v × d_e_dec decoder table (the tied LM head)"),
        group(
            "encoder",
            rotary_positions(),
            attention("self_attention", match="self_attention", kv_heads=M_kv, key_dim=d_k,
                      value_dim=d_k, bias=zeta),
            gated_feed_forward(match="mlp", names=("gate_proj", "up_proj", "down_proj")),
            *_norms("", d_e, "pre_self_attention", "post_self_attention", "pre_feedforward",
                    "post_feedforward"),
            times=L_enc,
            match=r"encoder_layer_\d+",
        ),
        group(
            "decoder",
            rotary_positions(),
            attention("self_attention", match="self_attention", width=d_e_dec, heads=M_dec,
                      kv_heads=M_kv_dec, key_dim=d_k_dec, value_dim=d_k_dec, bias=zeta),
            attention("cross_attention", match="cross_attention", kind="cross-attention", width=d_e_dec, heads=M_dec,
                      kv_heads=M_kv_dec, key_dim=d_k_dec, value_dim=d_k_dec, kv_width=d_e,
                      bias=zeta),
            gated_feed_forward(match="mlp", width=d_e_dec, inner=d_f_dec,
                               names=("gate_proj", "up_proj", "down_proj")),
            *_norms("decoder_", d_e_dec, "pre_self_attention", "post_self_attention",
                    "pre_cross_attention", "post_cross_attention", "pre_feedforward",
                    "post_feedforward"),
            times=L_dec,
            match=r"decoder_layer_\d+",
        ),
        leaf("final_norms", d_e + d_e_dec, match=r"rms_normalization(_\d+)?", kind="norm",
             note="the encoder's (d_e) and decoder's (d_e_dec) output RMS norms; KerasHub "
                  "leaves them unnamed, so they are one term"),
        leaf("head", (1 - tied) * d_e_dec * v, match="decoder_token_embedding/reverse_embeddings",
             kind="head",
             note="untied d_e_dec × v LM head; zero when tied (every released checkpoint)"),
    ),
    reference="reference_models.t5gemma:backbone",
    counting="trainable weights of the backbone: encoder and decoder token tables, L_enc encoder "
             "and L_dec decoder blocks, the two output norms, and the LM head when untied "
             "(KerasHub keeps it in the backbone)",
    required=(v, d_e, d_f, M, M_kv, d_k, L_enc),
    optional={L_dec: L_enc, d_e_dec: d_e, d_f_dec: d_f, M_dec: M, M_kv_dec: M_kv,
              d_k_dec: d_k, zeta: 0, tied: 1},
    fixed={d_v: d_k},
    constraints=(Divisible(M, M_kv), Divisible(M_dec, M_kv_dec)),
    presets="t5gemma",
    family="keras_hub",
    keras_hub_metadata=True,
    examples={
        "tiny": dict(v=100, d_e=32, d_f=48, M=4, M_kv=2, d_k=8, L_enc=2),
        "tiny_unbalanced_untied": dict(v=100, d_e=32, d_f=48, M=4, M_kv=2, d_k=8, L_enc=3,
                                       L_dec=1, d_e_dec=24, d_f_dec=40, M_dec=2, M_kv_dec=1,
                                       d_k_dec=6, tied=0),
        "odd_biases": dict(v=97, d_e=15, d_f=7, M=3, M_kv=3, d_k=5, L_enc=1, L_dec=2, zeta=1),
    },
))
