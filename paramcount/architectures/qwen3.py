"""Qwen 3 dense models (Qwen Team 2025, "Qwen3 Technical Report") as KerasHub builds them:
Qwen3Backbone.

The Llama block with QK norm: an RMS norm of width d_k (one scale shared by all heads) on every
query head and every key head, before RoPE. No attention biases (Qwen 2 had q/k/v biases), SwiGLU,
grouped-query attention with a head width d_k set apart from d_e/M (128 in every published size).
The small models (0.6B–4B) tie the LM head to the token embedding.
"""

from __future__ import annotations

from paramcount.components.llama_like import gqa_attention, keras_hub_decoder
from paramcount.hparams import Divisible
from paramcount.registry import register
from paramcount.symbols import L, M, M_kv, d_e, d_f, d_k, v

register(keras_hub_decoder(
    "qwen3",
    title="Qwen 3 backbone (keras_hub.models.Qwen3Backbone): GQA with QK norm, SwiGLU, RoPE",
    source="Qwen Team 2025 (Qwen3 Technical Report), table 1; "
           "keras_hub/src/models/qwen3/qwen3_backbone.py",
    attention_term=gqa_attention(qk_norm=True),
    counting_extra=" (QK norms included)",
    required=(v, d_e, M, M_kv, d_k, d_f, L),
    constraints=(Divisible(M, M_kv),),
    examples={
        "tiny_tied": dict(v=97, d_e=32, M=8, M_kv=2, d_k=4, d_f=48, L=2),
        "tiny_untied_wide_heads": dict(v=31, d_e=21, M=3, M_kv=1, d_k=10, d_f=13, L=3, tied=0),
        "tiny_mha": dict(v=10, d_e=12, M=4, M_kv=4, d_k=3, d_f=5, L=1, tied=1),
    },
))
