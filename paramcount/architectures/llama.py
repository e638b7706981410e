"""Llama 2 (Touvron et al. 2023) as KerasHub builds it: LlamaBackbone.

Pre-norm decoder blocks with RMS norms, rotary positions, grouped-query attention without biases
(M_kv key/value heads; Llama 2 7B has M_kv = M) and a SwiGLU feed-forward of width d_f. KerasHub
keeps the LM head in the backbone (``ReversibleEmbedding``): untied it is a d_e × v matrix of its
own, tied (``tie_word_embeddings=True``) it is the token table transposed.
"""

from __future__ import annotations

from paramcount.components.llama_like import backbone, decoder_blocks, swiglu, tied
from paramcount.hparams import Divisible
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, M_kv, d_e, d_f, d_k, v

FORMULA = backbone("llama", decoder_blocks(swiglu()))

register(Architecture(
    id="llama",
    title="Llama 2 backbone (keras_hub.models.LlamaBackbone): GQA, SwiGLU, RMS norm, RoPE",
    source="Touvron et al. 2023 (Llama 2); keras_hub/src/models/llama/llama_backbone.py",
    formula=FORMULA,
    required=(v, d_e, M, M_kv, d_f, L),
    optional={tied: 0},
    fixed={d_k: d_e / M},
    constraints=(Divisible(d_e, M), Divisible(M, M_kv)),
    reference="reference_models.llama:backbone",
    counting="trainable weights of the backbone: token embedding, L decoder blocks, final RMS "
             "norm and the LM head KerasHub keeps in the backbone (none when tied)",
    presets="llama",
    keras_hub_metadata=True,
    family="keras_hub",
    examples={
        "tiny_mha": dict(v=101, d_e=24, M=4, M_kv=4, d_f=40, L=2),
        "tiny_gqa_tied": dict(v=37, d_e=30, M=6, M_kv=2, d_f=53, L=3, tied=1),
        "tiny_mqa": dict(v=50, d_e=16, M=4, M_kv=1, d_f=21, L=1, tied=0),
    },
))
