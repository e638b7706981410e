"""IBM Granite 3 dense models (IBM 2024, "Granite 3.0 Language Models"), as transformers builds
them: GraniteForCausalLM. KerasHub has no Granite, so transformers is the reference.

Llama's weights (pre-norm RMS norms, grouped-query attention, SwiGLU) with optional biases on
the attention projections (``attention_bias``, b_att) and the feed-forward (``mlp_bias``, b_ffn);
Granite's four multipliers (embedding, residual, attention, logits) scale activations and hold
no weights. The released models tie the LM head to the token table.
"""

from __future__ import annotations

from paramcount.core.symbols import L, M, M_kv, b_att, b_ffn, d_e, d_f, tied, v
from paramcount.families._lineages import (
    HF_ATTENTION_BIAS,
    HF_DECODER_FIELDS,
    HF_FFN,
    HF_MLP_BIAS,
    HF_TIED_NO,
    rotary_heads,
)
from paramcount.model.components.hf_decoder import attention, causal_lm
from paramcount.model.components.modern import gated_feed_forward, rms_norm
from paramcount.model.frameworks import Transformers, own_weights
from paramcount.model.mapping import Table
from paramcount.model.registry import Architecture, register
from paramcount.model.weights import Named

IDS = ("granite",)  # the ids this folder registers


FORMULA = causal_lm(
    "granite",
    block=(rms_norm("attention_norm", match="input_layernorm"),
           attention(qkv_bias=b_att, o_bias=b_att),
           rms_norm("ffn_norm", match="post_attention_layernorm"),
           gated_feed_forward("ffn", inner=d_f, bias=b_ffn, match="mlp",
                              names=("gate_proj", "up_proj", "down_proj"))),
    final_norm=rms_norm("final_norm", match="model/norm"),
)

register(Architecture(
    id="granite",
    title="Granite 3 (transformers GraniteForCausalLM): Llama's block with optional biases, "
          "activation multipliers",
    source="IBM 2024 (Granite 3.0 Language Models), table 1; "
           "transformers/models/granite/modeling_granite.py",
    formula=FORMULA,
    required=(v, d_e, M, M_kv, d_f, L),
    optional={tied: 1, b_att: 0, b_ffn: 0},
    restrictions=(
        *rotary_heads("GraniteConfig"),
    ),
    reference=Named("reference_models.hf:weights", ("granite",)),
    counting="trainable parameters of the causal LM: token embedding, L blocks, final RMS norm, "
             "LM head (none when tied, as released)",
    presets="granite",
    family="transformers",
    mapping=Table(
        fields=(
            *HF_DECODER_FIELDS,
            HF_FFN,
            HF_ATTENTION_BIAS,
            HF_MLP_BIAS,
            HF_TIED_NO,
        ),
        model_type="granite",
        hf_classes={"GraniteForCausalLM": "granite"},
        free=frozenset({
            "hidden_act", "max_position_embeddings", "rms_norm_eps", "rope_theta",
            "rope_scaling", "rope_parameters", "attention_dropout", "embedding_multiplier",
            "logits_scaling", "residual_multiplier", "attention_multiplier",
        }),
    ),
    transformers=Transformers(weights=own_weights(FORMULA)),
    frameworks=("transformers",),
    examples={
        "tiny": dict(v=97, d_e=32, M=4, M_kv=2, d_f=48, L=2),
        "tiny_biases_untied": dict(v=31, d_e=24, M=6, M_kv=3, d_f=20, L=3, b_att=1, b_ffn=1,
                                   tied=0),
    },
))
