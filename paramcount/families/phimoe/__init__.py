"""Phi-3.5-MoE (Microsoft 2024, "Phi-3 Technical Report", section on phi-3.5-MoE), as
transformers builds it: PhimoeForCausalLM. KerasHub has no Phi-3.5-MoE, so transformers is the
reference.

Pre-norm blocks with layer norms (γ and β), grouped-query attention whose four projections carry
biases (``attention_bias``, b_att), and E SwiGLU experts of width d_f with a bias-free router
(k per token, no shared expert). A final layer norm and an LM head with a bias
(``lm_head_bias``, b_head).
"""

from __future__ import annotations

from paramcount.core.symbols import E
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import b_att
from paramcount.core.symbols import b_head
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import tied
from paramcount.core.symbols import v
from paramcount.families._decoders import RMS_CAUSAL_LM_FREE
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._decoders import pre_norm_causal_lm
from paramcount.families._decoders import sliding
from paramcount.families._defaults import family_table
from paramcount.families._lineages import HF_ATTENTION_BIAS
from paramcount.families._lineages import HF_FFN
from paramcount.families._lineages import HF_GQA_FIELDS
from paramcount.families._lineages import HF_HEAD_DIM
from paramcount.families._lineages import HF_LOCAL_ROUTING
from paramcount.families._lineages import HF_TIED_NO
from paramcount.families._lineages import ROUTED_TO_AT_MOST_ALL
from paramcount.families._lineages import rotary_heads
from paramcount.model.components.basic import layer_norm
from paramcount.model.components.hf_decoder import attention
from paramcount.model.components.hf_decoder import routed_experts
from paramcount.model.components.hf_decoder import stacked_expert
from paramcount.model.components.modern import k_act
from paramcount.model.cost import runs
from paramcount.model.frameworks import Transformers
from paramcount.model.frameworks import own_weights
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("phimoe",)  # the ids this folder registers


# transformers' sparsemixer routes every token to two experts whatever num_experts_per_tok says
# (its top_k is unused): of the k a token is counted through, each computes T·2/k positions
_EXPERT = runs(stacked_expert(d_f), 2 / k_act)
FORMULA = pre_norm_causal_lm("phimoe", attention(qkv_bias=b_att, o_bias=b_att), routed_experts(_EXPERT, match="mlp"),
                             norm=layer_norm, head_bias=b_head,
                             note="pre-norm blocks: attention, E experts with a router")

register(hf_causal_lm(
    "phimoe",
    formula=FORMULA,
    required=(v, d_e, M, M_kv, d_f, L, E),
    # no window unless a config sets one (every layer then): the cache's kept positions
    transformers=Transformers(weights=own_weights(FORMULA), **sliding(default=None)),
    optional={k_act: 2, tied: 0, b_att: 1, b_head: 1},
    restrictions=(
        *rotary_heads("PhimoeConfig"),
        ROUTED_TO_AT_MOST_ALL,
    ),
    mapping=family_table(
        "phimoe", hf="PhimoeForCausalLM",
        fields=(
            *HF_GQA_FIELDS,
            HF_HEAD_DIM,  # read by the attention (getattr; issue 32), refused unless d_e/M
            HF_FFN, *HF_LOCAL_ROUTING, HF_ATTENTION_BIAS,
            Field("b_head", hf="lm_head_bias", flag=True, hf_default=0),
            HF_TIED_NO,
        ),
        free=RMS_CAUSAL_LM_FREE | {
            "sliding_window", "output_router_logits", "router_aux_loss_coef", "router_jitter_noise",
            "input_jitter_noise", "original_max_position_embeddings",
        },
    ),
))
