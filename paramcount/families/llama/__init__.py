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
    hf="LlamaForCausalLM", keras="LlamaBackbone",
    fields=(*LLAMA_FIELDS, TIED_NO),
    table_restrictions=always_off(("attention_bias", "KerasHub's Llama attention has no biases"),
                                  ("mlp_bias", "KerasHub's Llama feed-forward has no biases")),
    head_dim="transformers",
    optional={tied: 0},
))
