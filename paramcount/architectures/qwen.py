"""Qwen 2 / Qwen 2.5 (Qwen Team 2024, "Qwen2 Technical Report" and "Qwen2.5 Technical Report") as
KerasHub builds them: QwenBackbone.

The Llama block with biases on the query, key and value projections only (none on the output
projection, none in the feed-forward): RMS norms, RoPE, grouped-query attention, SwiGLU. The small
models tie the LM head to the token embedding; from 7B on it is a matrix of its own, which
KerasHub keeps in the backbone.
"""

from __future__ import annotations

from paramcount.components.llama_like import gqa_attention, keras_hub_decoder
from paramcount.hparams import Divisible
from paramcount.registry import register
from paramcount.symbols import L, M, M_kv, d_e, d_f, d_k, v

register(keras_hub_decoder(
    "qwen",
    title="Qwen 2 / 2.5 backbone (keras_hub.models.QwenBackbone): GQA with q/k/v biases, SwiGLU",
    source="Qwen Team 2024 (Qwen2, Qwen2.5 technical reports); "
           "keras_hub/src/models/qwen/qwen_backbone.py",
    attention_term=gqa_attention(bias=(1, 1, 1, 0)),
    required=(v, d_e, M, M_kv, d_f, L),
    fixed={d_k: d_e / M},
    constraints=(Divisible(d_e, M), Divisible(M, M_kv)),
    examples={
        "tiny_tied": dict(v=97, d_e=32, M=8, M_kv=2, d_f=48, L=2),
        "tiny_untied_odd": dict(v=31, d_e=21, M=7, M_kv=7, d_f=13, L=3, tied=0),
        "tiny_mqa": dict(v=10, d_e=12, M=4, M_kv=1, d_f=5, L=1, tied=1),
    },
))
