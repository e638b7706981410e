"""IBM Granite 3 mixture-of-experts models (IBM 2024, "Granite 3.0 Language Models": 1B-A400M,
3B-A800M), as transformers builds them: GraniteMoeForCausalLM. KerasHub has no Granite, so
transformers is the reference.

Granite 3's dense block (:mod:`paramcount.families.granite`: RMS norms, grouped-query
attention with optional biases, the four activation multipliers, tied head) with its SwiGLU
replaced by E fine-grained SwiGLU experts of width d_fe (``block_sparse_moe``: gate and up
stacked in ``input_linear``'s place as ``gate_up_proj``), k per token, a bias-free router
(``router.weight``), no shared expert and no feed-forward biases.
"""

from __future__ import annotations

import dataclasses

from paramcount.core.formula import leaf
from paramcount.core.symbols import E
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import b_att
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_fe
from paramcount.core.symbols import tied
from paramcount.core.symbols import v
from paramcount.families._lineages import HF_EXPERT_FFN_AS_FFN
from paramcount.families._lineages import HF_LOCAL_ROUTING
from paramcount.families._lineages import ROUTED_TO_AT_MOST_ALL
from paramcount.model.components.hf_decoder import causal_lm
from paramcount.model.components.hf_decoder import stacked_expert
from paramcount.model.components.modern import k_act
from paramcount.model.components.modern import mixture_of_experts
from paramcount.model.frameworks import Transformers
from paramcount.model.frameworks import own_weights
from paramcount.model.registry import Architecture
from paramcount.model.registry import get
from paramcount.model.registry import register
from paramcount.model.weights import Named

IDS = ("granitemoe",)  # the ids this folder registers


_GRANITE: Architecture = get("granite")
_blocks = _GRANITE.formula.find("blocks")
FORMULA = causal_lm(
    "granitemoe",
    # Granite's norms and attention; its dense SwiGLU (the last part) replaced by the experts
    block=(*_blocks.children[:-1],
           mixture_of_experts(
               "moe", experts=E, top_k=k_act, expert=stacked_expert(d_fe),
               router=leaf("router", E * d_e, match="router", kind="router",
                           note="expert affinities d_e → E, no bias", d_in=d_e, d_out=E),
               match="block_sparse_moe")),
    final_norm=_GRANITE.formula.find("final_norm"),
)

# Granite's fields without the dense feed-forward's (d_f, its bias), with the experts'
_DENSE_ONLY = {"d_f", "b_ffn"}
_MAPPING = _GRANITE.mapping
assert _MAPPING is not None
MAPPING = dataclasses.replace(
    _MAPPING,
    fields=(*(f for f in _MAPPING.fields if f.symbol not in _DENSE_ONLY),
            HF_EXPERT_FFN_AS_FFN,
            *HF_LOCAL_ROUTING),
    model_type="granitemoe",
    hf_classes={"GraniteMoeForCausalLM": "granitemoe"},
    free=_MAPPING.free | {"output_router_logits", "router_aux_loss_coef"},
)

register(dataclasses.replace(
    _GRANITE,
    id="granitemoe",
    title="Granite 3 MoE (transformers GraniteMoeForCausalLM): Granite's block with E "
          "fine-grained SwiGLU experts",
    source="IBM 2024 (Granite 3.0 Language Models), table 1; "
           "transformers/models/granitemoe/modeling_granitemoe.py",
    formula=FORMULA,
    required=(v, d_e, M, M_kv, d_fe, L, E),
    optional={k_act: 8, tied: 1, b_att: 0},
    restrictions=(*_GRANITE.restrictions,
                  ROUTED_TO_AT_MOST_ALL),
    reference=Named("reference_models.hf:weights", ("granitemoe",)),
    counting="trainable parameters of the causal LM: token embedding, L blocks (router and E "
             "experts each), final RMS norm, LM head (none when tied, as released); active "
             "parameters count k of the E experts",
    presets="granitemoe",
    mapping=MAPPING,
    transformers=Transformers(weights=own_weights(FORMULA)),
    examples={
        "tiny": dict(v=97, d_e=32, M=4, M_kv=2, d_fe=12, L=2, E=6, k=2),
        "tiny_biases_untied": dict(v=31, d_e=24, M=6, M_kv=3, d_fe=5, L=3, E=4, k=4, b_att=1,
                                   tied=0),
    },
))
