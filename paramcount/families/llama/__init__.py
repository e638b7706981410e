"""Llama 2 (Touvron et al. 2023) as KerasHub builds it: LlamaBackbone.

Pre-norm decoder blocks with RMS norms, rotary positions, grouped-query attention without biases
(M_kv key/value heads; Llama 2 7B has M_kv = M) and a SwiGLU feed-forward of width d_f. KerasHub
keeps the LM head in the backbone (``ReversibleEmbedding``): untied it is a d_e × v matrix of its
own, tied (``tie_word_embeddings=True``) it is the token table transposed.
"""

from __future__ import annotations

from paramcount.core.symbols import tied
from paramcount.families._decoders import always_off
from paramcount.families._decoders import keras_llama
from paramcount.families._lineages import LLAMA_FIELDS
from paramcount.families._lineages import TIED_NO
from paramcount.model.registry import register

IDS = ("llama",)  # the ids this folder registers

# symbol ↔ LlamaBackbone argument ↔ LlamaConfig key (Llama 3's table too, under its own class).
# KerasHub's Llama has no head_dim argument: d_k is fixed to d_e/M there; transformers'
# LlamaConfig takes head_dim apart (any even width, settable there), as Mistral's does.
LLAMA = register(keras_llama(
    "llama",
    title="Llama 2 backbone (keras_hub.models.LlamaBackbone): GQA, SwiGLU, RMS norm, RoPE",
    source="Touvron et al. 2023 (Llama 2); keras_hub/src/models/llama/llama_backbone.py",
    hf="LlamaForCausalLM", keras="LlamaBackbone",
    fields=(*LLAMA_FIELDS, TIED_NO),
    table_restrictions=always_off(("attention_bias", "KerasHub's Llama attention has no biases"),
                                  ("mlp_bias", "KerasHub's Llama feed-forward has no biases")),
    # rotary scaling (Llama 3.1's frequency scaling in KerasHub's keys) and tensor-parallel slicing
    free=("rope_scaling", "pretraining_tp", "rope_position_scaling_factor", "rope_frequency_adjustment_factor",
          "rope_low_freq_factor", "rope_high_freq_factor", "rope_pretraining_sequence_length"),
    head_dim="transformers",
    optional={tied: 0},
    examples={
        "tiny_mha": dict(v=101, d_e=24, M=4, M_kv=4, d_f=40, L=2),
        "tiny_gqa_tied": dict(v=37, d_e=30, M=6, M_kv=2, d_f=53, L=3, tied=1),
        "tiny_mqa": dict(v=50, d_e=16, M=4, M_kv=1, d_f=21, L=1, tied=0),
    },
))
