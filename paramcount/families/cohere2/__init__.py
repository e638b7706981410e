"""Cohere Command R7B and Command A (Cohere 2024-2025), as transformers builds them:
Cohere2ForCausalLM. KerasHub has no Cohere model, so transformers is the reference.

Command R's parallel block (:mod:`paramcount.families.cohere`: one γ-only layer norm feeding
grouped-query attention and the SwiGLU, tied head, scaled logits) without its optional per-head
QK norm: Cohere2Attention builds none. Three of every four blocks attend through a sliding
window with rotary positions and the fourth globally without them (``layer_types``,
``sliding_window``): neither holds a weight.
"""

from __future__ import annotations

import dataclasses

from paramcount.core.symbols import b_att
from paramcount.core.symbols import qk_norm
from paramcount.core.symbols import tied
from paramcount.families._decoders import sliding
from paramcount.families.cohere import FORMULA as COHERE
from paramcount.model.components.hf_decoder import attention
from paramcount.model.components.hf_decoder import causal_lm
from paramcount.model.frameworks import Transformers
from paramcount.model.frameworks import own_weights
from paramcount.model.mapping import Table
from paramcount.model.registry import Architecture
from paramcount.model.registry import get
from paramcount.model.registry import register
from paramcount.model.weights import Named

IDS = ("cohere2",)  # the ids this folder registers


FORMULA = causal_lm(
    "cohere2",
    # Command R's norm and SwiGLU; its attention without the QK norms
    block=(COHERE.find("blocks.norm"), attention(qkv_bias=b_att, o_bias=b_att),
           COHERE.find("blocks.ffn")),
    final_norm=COHERE.find("final_norm"),
    note="parallel blocks: one γ-only layer norm feeds attention and the SwiGLU",
)

_COHERE: Architecture = get("cohere")
_MAPPING: Table | None = _COHERE.mapping
assert _MAPPING is not None

register(dataclasses.replace(
    _COHERE,
    id="cohere2",
    title="Cohere Command R7B / Command A (transformers Cohere2ForCausalLM): Command R's "
          "parallel blocks without QK norm, sliding-window layers (no weight)",
    source="Cohere 2024-2025 (Command R7B, Command A model cards); "
           "transformers/models/cohere2/modeling_cohere2.py",
    formula=FORMULA,
    optional={tied: 1, b_att: 0},
    reference=Named("reference_models.hf:weights", ("cohere2",)),
    presets="cohere2",
    mapping=dataclasses.replace(
        _MAPPING,
        fields=tuple(f for f in _MAPPING.fields if f.symbol != qk_norm.name),
        model_type="cohere2",
        hf_classes={"Cohere2ForCausalLM": "cohere2"},
        free=_MAPPING.free | {"sliding_window", "sliding_window_pattern", "layer_types",
                              "order_of_interleaved_layers", "position_embedding_type"},
    ),
    transformers=Transformers(weights=own_weights(FORMULA), **sliding(4)),  # 3 of 4 in a window
    examples={
        "tiny": dict(v=97, d_e=32, M=4, M_kv=4, d_f=48, L=2),
        "tiny_bias_untied": dict(v=31, d_e=24, M=6, M_kv=2, d_f=20, L=3, b_att=1, tied=0),
    },
))
