"""IBM Granite 3 dense models (IBM 2024, "Granite 3.0 Language Models"), as transformers builds
them: GraniteForCausalLM. KerasHub has no Granite, so transformers is the reference.

Llama's weights (pre-norm RMS norms, grouped-query attention, SwiGLU) with optional biases on
the attention projections (``attention_bias``, b_att) and the feed-forward (``mlp_bias``, b_ffn);
Granite's four multipliers (embedding, residual, attention, logits) scale activations and hold
no weights. The released models tie the LM head to the token table.
"""

from __future__ import annotations

from paramcount.core.symbols import b_att
from paramcount.core.symbols import b_ffn
from paramcount.core.symbols import d_f
from paramcount.core.symbols import tied
from paramcount.families._decoders import causal_lm_counting
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._decoders import pre_norm_causal_lm
from paramcount.families._lineages import HF_ATTENTION_BIAS
from paramcount.families._lineages import HF_CAUSAL_LM_FIELDS
from paramcount.families._lineages import HF_HEAD_DIM
from paramcount.families._lineages import HF_MLP_BIAS
from paramcount.families._lineages import HF_TIED_NO
from paramcount.model.components.hf_decoder import attention
from paramcount.model.components.modern import gated_feed_forward
from paramcount.model.registry import register

IDS = ("granite",)  # the ids this folder registers


register(hf_causal_lm(
    "granite",
    hf="GraniteForCausalLM",
    # Llama's pre-norm block with optional biases (attention_bias, mlp_bias), as transformers names it
    formula=pre_norm_causal_lm("granite", attention(qkv_bias=b_att, o_bias=b_att), gated_feed_forward(
        "ffn", inner=d_f, bias=b_ffn, match="mlp", names=("gate_proj", "up_proj", "down_proj"))),
    optional={tied: 1, b_att: 0, b_ffn: 0},
    counting=causal_lm_counting(tail=", as released"),
    # head_dim: GraniteAttention reads it (getattr; issue 32), refused unless d_e/M
    fields=(*HF_CAUSAL_LM_FIELDS, HF_HEAD_DIM, HF_ATTENTION_BIAS, HF_MLP_BIAS, HF_TIED_NO),
))
