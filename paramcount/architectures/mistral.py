"""Mistral 7B (Jiang et al. 2023) and its descendants as KerasHub builds them: MistralBackbone.

The Llama block (RMS norms, RoPE, grouped-query attention without biases, SwiGLU) with sliding-
window attention, which costs no parameters, and an untied LM head kept in the backbone. The head
width d_k defaults to d_e/M; Mistral Small 3 (Magistral) sets it apart (128 with d_e = 5120, M = 32).
"""

from __future__ import annotations

from paramcount.components.llama_like import backbone, decoder_blocks, swiglu
from paramcount.hparams import Divisible
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, M_kv, d_e, d_f, d_k, v

register(Architecture(
    id="mistral",
    title="Mistral backbone (keras_hub.models.MistralBackbone): GQA, SwiGLU, RoPE, untied head",
    source="Jiang et al. 2023 (Mistral 7B), table 1; keras_hub/src/models/mistral/mistral_backbone.py",
    formula=backbone("mistral", decoder_blocks(swiglu()), tie=0),
    required=(v, d_e, M, M_kv, d_f, L),
    optional={d_k: d_e / M},
    constraints=(Divisible(M, M_kv),),
    reference="reference_models.mistral:backbone",
    counting="trainable weights of the backbone: token embedding, L decoder blocks, final RMS "
             "norm and the untied LM head KerasHub keeps in the backbone",
    presets="mistral",
    keras_hub_metadata=True,
    family="keras_hub",
    examples={
        "tiny": dict(v=97, d_e=32, M=8, M_kv=2, d_f=48, L=2),
        "tiny_wide_heads": dict(v=31, d_e=20, M=4, M_kv=1, d_f=27, L=3, d_k=9),
        "tiny_mha": dict(v=13, d_e=12, M=3, M_kv=3, d_f=5, L=1),
    },
))
