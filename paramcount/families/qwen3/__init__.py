"""Qwen 3 dense models (Qwen Team 2025, "Qwen3 Technical Report") as KerasHub builds them:
Qwen3Backbone.

The Llama block with QK norm: an RMS norm of width d_k (one scale shared by all heads) on every
query head and every key head, before RoPE. No attention biases (Qwen 2 had q/k/v biases), SwiGLU,
grouped-query attention with a head width d_k set apart from d_e/M (128 in every published size).
The small models (0.6B–4B) tie the LM head to the token embedding.
"""

from __future__ import annotations

from paramcount.families._decoders import QWEN_FREE
from paramcount.families._decoders import always_off
from paramcount.families._decoders import keras_llama
from paramcount.families._lineages import DECODER_FIELDS
from paramcount.families._lineages import FFN
from paramcount.families._lineages import TIED_KERAS_YES
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("qwen3",)  # the ids this folder registers

register(keras_llama(
    "qwen3",
    hf="Qwen3ForCausalLM", keras="Qwen3Backbone",
    # symbol ↔ Qwen3Backbone argument ↔ Qwen3Config key. Absent keys: transformers' head_dim is
    # 128, its tie_word_embeddings false; KerasHub's tie_word_embeddings is true.
    fields=(*DECODER_FIELDS, Field("d_k", keras="head_dim", hf="head_dim", hf_default=128), FFN, TIED_KERAS_YES),
    table_restrictions=always_off((
        "attention_bias", "Qwen 3's attention has no biases (Qwen 2's had query, key and value biases)",
        "KerasHub's Qwen3 attention has no biases")),
    base_free=QWEN_FREE,
    # a head width d_k of its own, and QK norms: Qwen3ForCausalLM's names are Qwen 2's (Llama's)
    # with q_norm and k_norm, its rotary width d_k set apart from d_e/M
    head_dim="own", qk_norm=True,
))
