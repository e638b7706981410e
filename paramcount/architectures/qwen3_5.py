"""Qwen 3.5 dense models (Qwen Team 2026) as KerasHub builds their text backbone: Qwen3_5Backbone
without a vision encoder.

Hybrid blocks: three in four mix tokens with gated DeltaNet linear attention (Yang et al. 2025,
"Gated Delta Networks"), the fourth with gated full attention (grouped-query, QK norm, a sigmoid
output gate produced by the query projection, partial RoPE); every block ends in a SwiGLU
feed-forward. RMS norms throughout, no biases. The LM head is kept in the backbone unless tied.
"""

from __future__ import annotations

import sympy

from paramcount.components.llama_like import (
    FULL_AND_LINEAR,
    H_lk,
    H_lv,
    K_conv,
    L_full,
    backbone,
    d_lk,
    d_lv,
    hybrid_blocks,
    swiglu,
    tied,
)
from paramcount.hparams import Divisible
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, M_kv, d_e, d_f, d_k, v

HYBRID_OPTIONAL = {L_full: sympy.floor(L / 4), tied: 0, H_lk: 16, H_lv: 32, d_lk: 128,
                   d_lv: 128, K_conv: 4}
HYBRID_CONSTRAINTS = (Divisible(M, M_kv), *FULL_AND_LINEAR.constraints())
HYBRID_FIXED = FULL_AND_LINEAR.fixed()

register(Architecture(
    id="qwen3_5",
    title="Qwen 3.5 text backbone (keras_hub.models.Qwen3_5Backbone): gated DeltaNet + gated "
          "attention hybrid, SwiGLU",
    source="Qwen Team 2026 (Qwen3.5); Yang et al. 2025 (Gated Delta Networks); "
           "keras_hub/src/models/qwen3_5/qwen3_5_backbone.py",
    formula=backbone("qwen3_5", hybrid_blocks(swiglu())),
    required=(v, d_e, M, M_kv, d_k, d_f, L),
    optional=HYBRID_OPTIONAL,
    fixed=HYBRID_FIXED,
    constraints=HYBRID_CONSTRAINTS,
    reference="reference_models.qwen3_5:backbone",
    counting="trainable weights of the text backbone (no vision encoder): token embedding, L "
             "hybrid blocks, final RMS norm and the LM head KerasHub keeps in the backbone (none "
             "when tied); KerasHub's presets are vision-language models and are not counted here",
    family="keras_hub",
    examples={
        "tiny": dict(v=97, d_e=32, M=4, M_kv=2, d_k=8, d_f=48, L=7, H_lk=2, H_lv=4, d_lk=4,
                     d_lv=6, K_conv=4),
        "tiny_odd_tied": dict(v=31, d_e=21, M=3, M_kv=1, d_k=5, d_f=13, L=6, L_full=2, H_lk=1,
                              H_lv=3, d_lk=7, d_lv=2, K_conv=3, tied=1),
        "tiny_all_full": dict(v=13, d_e=8, M=2, M_kv=2, d_k=4, d_f=6, L=2, L_full=2, H_lk=1,
                              H_lv=1, d_lk=2, d_lv=2, K_conv=2, tied=0),
    },
))
