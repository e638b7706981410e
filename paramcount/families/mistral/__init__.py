"""Mistral 7B (Jiang et al. 2023) and its descendants as KerasHub builds them: MistralBackbone.

The Llama block (RMS norms, RoPE, grouped-query attention without biases, SwiGLU) with sliding-
window attention, which costs no parameters, and an untied LM head kept in the backbone. The head
width d_k defaults to d_e/M; Mistral Small 3 (Magistral) sets it apart (128 with d_e = 5120, M = 32).
"""

from __future__ import annotations

import dataclasses

from paramcount.families._decoders import keras_llama
from paramcount.families._decoders import sliding
from paramcount.families._lineages import FFN
from paramcount.families._lineages import HEAD_DIM
from paramcount.families._lineages import decoder_fields
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("mistral",)  # the ids this folder registers

# symbol ↔ MistralBackbone argument ↔ MistralConfig key. head_dim absent or null: d_e/M in
# both frameworks, the formula's default too. MistralConfig's absent num_key_value_heads is a
# fixed 8 (its dataclass default), not M.
KV_HEADS_8 = Field("M_kv", keras="num_key_value_heads", hf="num_key_value_heads", hf_default=8)

_MISTRAL = keras_llama(
    "mistral",
    hf="MistralForCausalLM", keras="MistralBackbone",
    fields=(*decoder_fields(KV_HEADS_8), FFN, HEAD_DIM),
    untied="Mistral's LM head is a matrix of its own (untied), kept in the backbone",
    # d_k is d_e/M unless head_dim sets it; MistralForCausalLM names its parameters as Llama's does
    head_dim="default",
)
# MistralConfig: every layer attends in a window of sliding_window (4096) positions, its cache
# keeping the last w − 1 (the window costs no weight, so the parameter tree is Llama's)
assert _MISTRAL.transformers is not None
register(dataclasses.replace(_MISTRAL, transformers=dataclasses.replace(_MISTRAL.transformers,
                                                                       **sliding())))
