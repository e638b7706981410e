"""Cohere Command R and Command R+ (Cohere 2024), as transformers builds them: CohereForCausalLM.
KerasHub has no Cohere model, so transformers is the reference.

A parallel block: one layer norm without a shift (``input_layernorm``, γ only) feeds both the
grouped-query attention (optional biases, ``attention_bias``) and the SwiGLU feed-forward, whose
outputs are added to the residual together. Command R+ normalises queries and keys with one
γ-only layer norm per head (``use_qk_norm``: M × d_k and M_kv × d_k). The final norm is γ-only
too; the LM head is the token table (tied) and its logits are scaled (``logit_scale``, no weight).
"""

from __future__ import annotations

from paramcount.core.symbols import b_att
from paramcount.core.symbols import d_f
from paramcount.core.symbols import qk_norm
from paramcount.core.symbols import tied
from paramcount.families._decoders import causal_lm_counting
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._decoders import parallel_causal_lm
from paramcount.families._lineages import HF_ATTENTION_BIAS
from paramcount.families._lineages import HF_CAUSAL_LM_FIELDS
from paramcount.families._lineages import HF_HEAD_DIM
from paramcount.families._lineages import HF_QK_NORM
from paramcount.families._lineages import HF_TIED_YES
from paramcount.model.components.hf_decoder import attention
from paramcount.model.components.hf_decoder import qk_norms
from paramcount.model.components.latent import swiglu_hf
from paramcount.model.registry import register

IDS = ("cohere",)  # the ids this folder registers


FORMULA = parallel_causal_lm(
    "cohere", attention(qkv_bias=b_att, o_bias=b_att, norms=qk_norms("heads", kind="layer", beta=0, on=qk_norm)),
    swiglu_hf("ffn", d_f, match="mlp"), beta=0,
    note="parallel blocks: one γ-only layer norm feeds attention and the SwiGLU")

register(hf_causal_lm(
    "cohere",
    hf="CohereForCausalLM",
    formula=FORMULA,
    optional={tied: 1, b_att: 0, qk_norm: 0},
    counting=causal_lm_counting("L parallel blocks", "γ-only layer norm", ", as released"),
    # head_dim: CohereAttention reads it (getattr, d_e/M when absent); any other width is
    # refused, d_k being d_e/M here (issue 32)
    fields=(*HF_CAUSAL_LM_FIELDS, HF_HEAD_DIM, HF_ATTENTION_BIAS, HF_QK_NORM, HF_TIED_YES),
))
