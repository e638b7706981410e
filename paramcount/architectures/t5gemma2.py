"""T5Gemma 2 (Google 2025, "T5Gemma 2") as KerasHub builds it: T5Gemma2Backbone, text only
(``vision_encoder=None``).

An encoder-decoder adapted from Gemma 3: each side a stack of Gemma 3 blocks (grouped-query
attention with head width d_k and QK norm, pre- and post-norms around attention and
feed-forward, RMS norms with a scale only, GeGLU feed-forward, rotary positions). Each layer is
``sliding_attention`` or ``full_attention`` (``encoder_layer_types``, ``decoder_layer_types``):
the kinds differ in mask and rotary wavelength only, never in weights, so one block formula
times L covers both. Unlike T5Gemma, a decoder block has no separate cross-attention: its
*merged* attention attends over the decoder's own tokens and the encoder output together, with
one set of projections (keys and values of both come from the same d_e-wide projections, so the
encoder output must be d_e wide too: both sides share the width). The decoder keeps its own
token table; the LM head is that table, transposed, unless untied.

Not counted here: the SigLIP vision encoder that every released T5Gemma 2 checkpoint carries
(with the two end-of-image embeddings it adds), so the three KerasHub presets are not listed;
their text stacks are the Gemma 3 270M / 1B / 4B sizes.
"""

from __future__ import annotations

from paramcount.components import attention, embedding, gated_feed_forward, rms_norm
from paramcount.components.decoders import qk_norm
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
    d_f,
    d_f_dec,
    d_k,
    d_k_dec,
    d_v,
    tied,
    v,
    zeta,
)


def _block(*, heads, kv_heads, key_dim, inner, attention_name: str, attention_match: str,
           norm_prefix: str, times, match: str):
    att = attention(attention_name, match=attention_match, heads=heads, kv_heads=kv_heads,
                    key_dim=key_dim, value_dim=key_dim, bias=zeta)
    return group(
        "blocks",
        group(
            attention_name,
            *att.children,
            leaf("query_norm", qk_norm * key_dim, match="query_norm", kind="norm",
                 note="RMS norm over each query head (QK norm); none when qk_norm = 0"),
            leaf("key_norm", qk_norm * key_dim, match="key_norm", kind="norm",
                 note="RMS norm over each key head (QK norm); none when qk_norm = 0"),
            match=attention_match,
            kind="attention",  # the decoder's merges self- and cross-attention in one
        ),
        gated_feed_forward(match="mlp", inner=inner, names=("gate_proj", "up_proj", "down_proj")),
        *[rms_norm(f"{p}_norm", match=f"{norm_prefix}{p}_layernorm")
          for p in ("pre_self_attention", "post_self_attention", "pre_feedforward",
                    "post_feedforward")],
        times=times,
        match=match,
        note="sliding-window and full-attention layers alike: they differ in mask and rotary "
             "wavelength, not in weights",
    )


register(Architecture(
    id="t5gemma2",
    title="T5Gemma 2 backbone, text only (keras_hub.models.T5Gemma2Backbone): Gemma 3 blocks as "
          "encoder and decoder, merged self+cross attention",
    source="Google 2025, 'T5Gemma 2: Seeing, Reading, and Understanding Longer'; "
           "keras_hub/src/models/t5gemma2/t5gemma2_{backbone,encoder,decoder,attention}.py",
    formula=group(
        "t5gemma2",
        embedding("encoder_token_embedding", v, match="encoder_token_embedding",
                  note="v × d_e encoder table"),
        leaf("decoder_token_embedding", v * d_e, match="decoder_token_embedding/embeddings",
             kind="embedding",
             note="v × d_e decoder table (the tied LM head)"),
        group(
            "encoder",
            _block(heads=M, kv_heads=M_kv, key_dim=d_k, inner=d_f,
                   attention_name="self_attention", attention_match="self_attention",
                   norm_prefix="", times=L_enc, match=r"encoder_layer_\d+"),
        ),
        group(
            "decoder",
            _block(heads=M_dec, kv_heads=M_kv_dec, key_dim=d_k_dec, inner=d_f_dec,
                   attention_name="merged_attention", attention_match="merged_attention",
                   norm_prefix="decoder_", times=L_dec, match=r"decoder_layer_\d+"),
        ),
        leaf("final_norms", 2 * d_e, match=r"rms_normalization(_\d+)?", kind="norm",
             note="the encoder's and decoder's output RMS norms; KerasHub leaves them unnamed, "
                  "so they are one term"),
        leaf("head", (1 - tied) * d_e * v, match="decoder_token_embedding/reverse_embeddings",
             kind="head",
             note="untied d_e × v LM head; zero when tied (every released checkpoint)"),
    ),
    reference="reference_models.t5gemma2:backbone",
    counting="trainable weights of the text backbone: encoder and decoder token tables, L_enc "
             "encoder and L_dec decoder blocks, the two output norms, and the LM head when "
             "untied; the vision encoder of the released checkpoints is not counted",
    required=(v, d_e, d_f, M, M_kv, d_k, L_enc),
    optional={L_dec: L_enc, d_f_dec: d_f, M_dec: M, M_kv_dec: M_kv, d_k_dec: d_k, zeta: 0,
              qk_norm: 1, tied: 1},
    fixed={d_v: d_k},
    constraints=(Divisible(M, M_kv), Divisible(M_dec, M_kv_dec)),
    family="keras_hub",
    examples={
        "tiny": dict(v=100, d_e=32, d_f=48, M=4, M_kv=2, d_k=8, L_enc=2),
        "tiny_unbalanced_untied": dict(v=100, d_e=24, d_f=48, M=4, M_kv=2, d_k=8, L_enc=3,
                                       L_dec=1, d_f_dec=40, M_dec=2, M_kv_dec=1, d_k_dec=6,
                                       tied=0),
        "odd_biases_no_qk_norm": dict(v=97, d_e=15, d_f=7, M=3, M_kv=3, d_k=5, L_enc=1,
                                      L_dec=2, zeta=1, qk_norm=0),
    },
))
