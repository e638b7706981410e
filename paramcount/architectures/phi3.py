"""Phi-3 (Abdin et al. 2024) as KerasHub builds it: keras_hub.models.Phi3Backbone.

Token embedding and an *untied* output projection (``ReversibleEmbedding(tie_weights=False)``:
the backbone holds both), rotary positions (plain or "su"-scaled for the 128k models: no
parameters either way), L pre-norm blocks of bias-free grouped-query attention and a SwiGLU
feed-forward, RMS norms (scale only) throughout.
"""

from __future__ import annotations

from paramcount.components import attention, embedding
from paramcount.components.basic import EVEN_HEADS
from paramcount.components.modern import gated_feed_forward, rms_norm, rotary_positions
from paramcount.formula import group
from paramcount.hparams import Divisible
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, M_kv, d_e, d_f, v

register(Architecture(
    id="phi3",
    title="Phi-3 backbone (keras_hub.models.Phi3Backbone): GQA, SwiGLU, RMS norm, untied head",
    source="Abdin et al. 2024, 'Phi-3 Technical Report'; "
           "keras_hub/src/models/phi3/phi3_{backbone,decoder,attention,layernorm}.py",
    formula=group(
        "phi3",
        group(
            "embeddings",
            embedding("token", v, match="token_embedding/embeddings"),
            rotary_positions(),
        ),
        group(
            "blocks",
            rms_norm("norm_1", match="pre_attention_layernorm"),
            attention("attention", match="attention", kv_heads=M_kv, bias=0),
            rms_norm("norm_2", match="post_attention_layernorm"),
            gated_feed_forward(),
            times=L,
            match=r"transformer_layer_\d+",
        ),
        rms_norm("final_norm", match="sequence_output_layernorm"),
        embedding("head", v, match="token_embedding/reverse_embeddings", kind="head",
                  note="untied output projection d_e × v, held by the backbone's embedding layer"),
    ),
    required=(v, d_e, M, d_f, L),
    optional={M_kv: M},
    fixed=EVEN_HEADS,
    # Phi-3 floors d_e // M, but with M = M_kv·M' the prover cannot split floor(d_e/M) yet.
    constraints=(Divisible(d_e, M), Divisible(M, M_kv)),
    reference="reference_models.phi3:backbone",
    counting="trainable weights of the backbone, which includes the untied LM head "
             "(token_embedding/reverse_embeddings)",
    presets="phi3",
    keras_hub_metadata=True,
    family="keras_hub",
    examples={
        "tiny": dict(v=100, d_e=32, M=4, M_kv=2, d_f=64, L=2),
        "mqa_odd": dict(v=997, d_e=45, M=5, M_kv=1, d_f=13, L=3),
        "mha": dict(v=61, d_e=24, M=3, d_f=40, L=1),
    },
))
