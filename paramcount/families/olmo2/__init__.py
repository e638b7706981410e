"""OLMo 2 (Team OLMo 2024, "2 OLMo 2 Furious") and OLMoE (Muennighoff et al. 2024, "OLMoE: Open
Mixture-of-Experts Language Models"), as transformers builds them: Olmo2ForCausalLM and
OlmoeForCausalLM. KerasHub has neither, so transformers is the reference.

OLMo 2's block puts its RMS norms *after* attention and after the SwiGLU feed-forward (inside the
residual: ``post_attention_layernorm``, ``post_feedforward_layernorm``, no input norm), and
normalises queries and keys over all heads at once (``q_norm`` M·d_k wide, ``k_norm`` M_kv·d_k).
OLMoE is pre-norm with the same all-heads QK norm and, in place of the feed-forward, E SwiGLU
experts of width d_fe with a bias-free router (k per token, no shared expert).
"""

from __future__ import annotations

from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import E
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_fe
from paramcount.core.symbols import tied
from paramcount.core.symbols import v
from paramcount.families._decoders import causal_lm_counting
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._decoders import pre_norm_causal_lm
from paramcount.families._lineages import HF_DECODER_FIELDS
from paramcount.families._lineages import HF_EXPERT_FFN_AS_FFN
from paramcount.families._lineages import HF_EXPERTS
from paramcount.families._lineages import HF_FFN
from paramcount.families._lineages import HF_HEAD_DIM
from paramcount.families._lineages import HF_TIED_NO
from paramcount.families._lineages import HF_TOP_K
from paramcount.families._lineages import ROUTED_TO_AT_MOST_ALL
from paramcount.families._lineages import rotary_heads
from paramcount.model.components.hf_decoder import attention
from paramcount.model.components.hf_decoder import causal_lm
from paramcount.model.components.hf_decoder import qk_norms
from paramcount.model.components.hf_decoder import routed_experts
from paramcount.model.components.hf_decoder import stacked_expert
from paramcount.model.components.latent import swiglu_hf
from paramcount.model.components.modern import k_act
from paramcount.model.components.modern import rms_norm
from paramcount.model.mapping import Require
from paramcount.model.registry import register

IDS = ("olmo2", "olmoe")  # the ids this folder registers


# OLMo 2's and OLMoE's free keys beyond the lineage's, and their one restriction: no biases
_FREE = ("rms_norm_eps", "pretraining_tp", "clip_qkv", "output_router_logits", "router_aux_loss_coef",
         "norm_topk_prob")
_NO_BIAS = Require("attention_bias", (False,), "OLMo's attention projections have no biases")
_ROWS = (Sets("attention_bias", False, why="OLMo's attention projections have no biases"), *Requires.each((_NO_BIAS,)))


OLMO2 = causal_lm(
    "olmo2",
    block=(attention(norms=qk_norms("full")),
           rms_norm("post_attention_norm", match="post_attention_layernorm"),
           swiglu_hf("ffn", d_f, match="mlp"),
           rms_norm("post_ffn_norm", match="post_feedforward_layernorm")),
    final_norm=rms_norm("final_norm", match="model/norm"),
    note="post-norm blocks: attention (QK norm over all heads), RMS norm, SwiGLU, RMS norm",
)

register(hf_causal_lm(
    "olmo2",
    hf="Olmo2ForCausalLM",
    formula=OLMO2,
    optional={tied: 0},
    counting=causal_lm_counting("L post-norm blocks"),
    fields=(*HF_DECODER_FIELDS, HF_TIED_NO, HF_FFN, HF_HEAD_DIM),
    table_restrictions=_ROWS,
    free=_FREE,
))

_EXPERT = stacked_expert(d_fe)
OLMOE = pre_norm_causal_lm(
    "olmoe", attention(norms=qk_norms("full")), routed_experts(_EXPERT, router="gate", match="mlp"),
    note="pre-norm blocks: attention (QK norm over all heads), E experts with a router")

register(hf_causal_lm(
    "olmoe",
    hf="OlmoeForCausalLM",
    formula=OLMOE,
    required=(v, d_e, M, M_kv, d_fe, L, E),
    optional={k_act: 8, tied: 0},
    restrictions=(
        *rotary_heads("OlmoeConfig"),
        ROUTED_TO_AT_MOST_ALL,
    ),
    counting=causal_lm_counting("L blocks (router and E experts each)") + "; active parameters count k of the E "
             "experts",
    # head_dim: read by OlmoeAttention (getattr; issue 32), refused unless d_e/M
    fields=(*HF_DECODER_FIELDS, HF_HEAD_DIM, HF_TIED_NO, HF_EXPERT_FFN_AS_FFN, HF_EXPERTS, HF_TOP_K),
    table_restrictions=_ROWS,
    free=_FREE,
))
