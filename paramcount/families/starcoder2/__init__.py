"""StarCoder2 (Lozhkov et al. 2024, "StarCoder 2 and The Stack v2"), as transformers builds it:
Starcoder2ForCausalLM. KerasHub has no StarCoder2, so transformers is the reference.

Pre-norm blocks with layer norms (γ and β); grouped-query attention with rotary positions and,
with ``use_bias`` (as released), biases on all four projections; a GELU MLP of width d_f
(``c_fc``, ``c_proj``) whose projections carry biases under the same switch; a final layer norm
and an LM head without a bias, tied to the token table in the 3B and 7B models. Sliding-window
attention holds no weight.
"""

from __future__ import annotations

from paramcount.core.restrictions import Fixed
from paramcount.core.symbols import L, M, M_kv, b_att, b_ffn, d_e, d_f, tied, v
from paramcount.families._lineages import GQA, HF_DECODER_FIELDS, HF_FFN, HF_TIED_YES, ROTARY_PAIRS, split_heads
from paramcount.model.components.basic import layer_norm
from paramcount.model.components.hf_decoder import attention, causal_lm, plain_mlp
from paramcount.model.frameworks import Transformers, own_weights
from paramcount.model.mapping import Field, Table
from paramcount.model.registry import Architecture, register
from paramcount.model.weights import Named

IDS = ("starcoder2",)  # the ids this folder registers


FORMULA = causal_lm(
    "starcoder2",
    block=(layer_norm("attention_norm", match="input_layernorm"),
           attention(qkv_bias=b_att, o_bias=b_att),
           layer_norm("ffn_norm", match="post_attention_layernorm"),
           plain_mlp(bias=b_ffn)),
    final_norm=layer_norm("final_norm", match="model/norm"),
    note="pre-norm blocks: attention, GELU MLP",
)

register(Architecture(
    id="starcoder2",
    title="StarCoder2 (transformers Starcoder2ForCausalLM): grouped-query attention and a GELU "
          "MLP with biases, layer norms",
    source="Lozhkov et al. 2024 (StarCoder 2 and The Stack v2), table 3; "
           "transformers/models/starcoder2/modeling_starcoder2.py",
    formula=FORMULA,
    required=(v, d_e, M, M_kv, d_f, L),
    optional={tied: 1, b_att: 1},
    restrictions=(
        split_heads("Starcoder2Config"),
        Fixed(b_ffn, b_att, why="use_bias switches the attention's and the MLP's biases together"),
        ROTARY_PAIRS,
        GQA,
    ),
    reference=Named("reference_models.hf:weights", ("starcoder2",)),
    counting="trainable parameters of the causal LM: token embedding, L blocks, final layer "
             "norm, LM head (none when tied, as the 3B and 7B are)",
    presets="starcoder2",
    family="transformers",
    mapping=Table(
        fields=(
            *HF_DECODER_FIELDS,
            HF_FFN,
            Field("b_att", hf="use_bias", flag=True, hf_default=1),
            HF_TIED_YES,
        ),
        model_type="starcoder2",
        hf_classes={"Starcoder2ForCausalLM": "starcoder2"},
        free=frozenset({
            "hidden_act", "max_position_embeddings", "norm_epsilon", "rope_theta",
            "rope_scaling", "rope_parameters", "attention_dropout", "residual_dropout",
            "embedding_dropout", "sliding_window", "mlp_type", "norm_type",
        }),
    ),
    transformers=Transformers(weights=own_weights(FORMULA)),
    frameworks=("transformers",),
    examples={
        "tiny": dict(v=97, d_e=32, M=4, M_kv=2, d_f=48, L=2),
        "tiny_no_bias_untied": dict(v=31, d_e=24, M=6, M_kv=3, d_f=20, L=3, b_att=0, tied=0),
    },
))
