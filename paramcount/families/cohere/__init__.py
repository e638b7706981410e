"""Cohere Command R and Command R+ (Cohere 2024), as transformers builds them: CohereForCausalLM.
KerasHub has no Cohere model, so transformers is the reference.

A parallel block: one layer norm without a shift (``input_layernorm``, γ only) feeds both the
grouped-query attention (optional biases, ``attention_bias``) and the SwiGLU feed-forward, whose
outputs are added to the residual together. Command R+ normalises queries and keys with one
γ-only layer norm per head (``use_qk_norm``: M × d_k and M_kv × d_k). The final norm is γ-only
too; the LM head is the token table (tied) and its logits are scaled (``logit_scale``, no weight).
"""

from __future__ import annotations

from paramcount.core.symbols import L, M, M_kv, b_att, d_e, d_f, qk_norm, tied, v
from paramcount.families._lineages import (
    HF_ATTENTION_BIAS,
    HF_DECODER_FIELDS,
    HF_FFN,
    HF_QK_NORM,
    HF_TIED_YES,
    rotary_heads,
)
from paramcount.model.components.basic import layer_norm
from paramcount.model.components.hf_decoder import attention, causal_lm, qk_norms
from paramcount.model.components.latent import swiglu_hf
from paramcount.model.frameworks import Transformers, own_weights
from paramcount.model.mapping import Table
from paramcount.model.registry import Architecture, register
from paramcount.model.weights import Named

IDS = ("cohere",)  # the ids this folder registers


FORMULA = causal_lm(
    "cohere",
    block=(layer_norm("norm", beta=0, match="input_layernorm"),
           attention(qkv_bias=b_att, o_bias=b_att,
                     norms=qk_norms("heads", kind="layer", beta=0, on=qk_norm)),
           swiglu_hf("ffn", d_f, match="mlp")),
    final_norm=layer_norm("final_norm", beta=0, match="model/norm"),
    note="parallel blocks: one γ-only layer norm feeds attention and the SwiGLU",
)

register(Architecture(
    id="cohere",
    title="Cohere Command R / R+ (transformers CohereForCausalLM): parallel blocks, γ-only "
          "layer norms, optional per-head QK norm, tied head",
    source="Cohere 2024 (Command R, Command R+ model cards); "
           "transformers/models/cohere/modeling_cohere.py",
    formula=FORMULA,
    required=(v, d_e, M, M_kv, d_f, L),
    optional={tied: 1, b_att: 0, qk_norm: 0},
    restrictions=(
        *rotary_heads("CohereConfig"),
    ),
    reference=Named("reference_models.hf:weights", ("cohere",)),
    counting="trainable parameters of the causal LM: token embedding, L parallel blocks, final "
             "γ-only layer norm, LM head (none when tied, as released)",
    presets="cohere",
    family="transformers",
    mapping=Table(
        fields=(
            *HF_DECODER_FIELDS,
            HF_FFN,
            HF_ATTENTION_BIAS,
            HF_QK_NORM,
            HF_TIED_YES,
        ),
        model_type="cohere",
        hf_classes={"CohereForCausalLM": "cohere"},
        free=frozenset({
            "hidden_act", "max_position_embeddings", "layer_norm_eps", "rope_theta",
            "rope_scaling", "rope_parameters", "attention_dropout", "logit_scale",
            "use_embedding_sharing", "model_max_length",
        }),
    ),
    transformers=Transformers(weights=own_weights(FORMULA)),
    frameworks=("transformers",),
    examples={
        "tiny": dict(v=97, d_e=32, M=4, M_kv=4, d_f=48, L=2),
        "tiny_qk_norm_bias_untied": dict(v=31, d_e=24, M=6, M_kv=2, d_f=20, L=3, qk_norm=1,
                                         b_att=1, tied=0),
    },
))
