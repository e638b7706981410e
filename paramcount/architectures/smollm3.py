"""SmolLM3 (Hugging Face 2025, "SmolLM3: smol, multilingual, long-context reasoner") as KerasHub
builds it: SmolLM3Backbone.

A Llama-style decoder: RMS norms, grouped-query attention, SwiGLU, tied head; RoPE is switched
off in every fourth layer (NoPE), which changes no count. Two things KerasHub holds that the
Llama backbone does not: each layer stores its RoPE inverse frequencies as a non-trainable weight
(d_k/2 values, counted in KerasHub's published figure, kept even in NoPE layers), and the output
projection never has a bias, even with ``attention_bias=True``. KerasHub builds the output
projection and the rotary layer outside their block's name scope, so their weights are named
``o_proj/kernel`` and ``rotary_emb/inv_freq`` in every layer alike.
"""

from __future__ import annotations

from paramcount.components.basic import dense
from paramcount.components.llama_like import embeddings, final_norm, output_head, tied
from paramcount.components.modern import gated_feed_forward, rms_norm
from paramcount.formula import group, leaf
from paramcount.hparams import Divisible
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, M_kv, b_ffn, b_qkv, d_e, d_f, d_k, v

BLOCKS = group(
    "blocks",
    rms_norm("attention_norm", match="input_layernorm"),
    group(
        "attention",
        dense("query", d_e, M * d_k, bias=b_qkv, match="self_attn/q_proj"),
        dense("key", d_e, M_kv * d_k, bias=b_qkv, match="self_attn/k_proj"),
        dense("value", d_e, M_kv * d_k, bias=b_qkv, match="self_attn/v_proj"),
        dense("output", M * d_k, d_e, bias=0, match="o_proj",
              note="never a bias, whatever attention_bias says"),
        leaf("rope_inv_freq", d_k / 2, match="rotary_emb/inv_freq", trainable=False,
             note="RoPE inverse frequencies kept as a non-trainable weight: computed from the "
                  "head width, not learned"),
        kind="attention",
    ),
    rms_norm("ffn_norm", match="post_attention_layernorm"),
    gated_feed_forward("ffn", bias=b_ffn, match="mlp",
                       names=("gate_proj", "up_proj", "down_proj")),
    times=L,
)

register(Architecture(
    id="smollm3",
    title="SmolLM3 backbone (keras_hub.models.SmolLM3Backbone): GQA, SwiGLU, NoPE layers, tied",
    source="Hugging Face 2025 (SmolLM3 blog and config); "
           "keras_hub/src/models/smollm3/smollm3_backbone.py",
    formula=group("smollm3", embeddings(), BLOCKS, final_norm(), output_head(1)),
    required=(v, d_e, M, M_kv, d_f, L),
    optional={b_qkv: 0, b_ffn: 0},
    fixed={d_k: d_e / M, tied: 1},
    constraints=(Divisible(d_e, 2 * M), Divisible(M, M_kv)),
    reference="reference_models.smollm3:backbone",
    counting="weights of the backbone: token embedding (the head is tied to it), L decoder "
             "blocks, final RMS norm; the per-layer RoPE inverse frequencies are counted apart as "
             "non-trainable",
    presets="smollm3",
    keras_hub_metadata=True,
    family="keras_hub",
    examples={
        "tiny": dict(v=97, d_e=32, M=8, M_kv=2, d_f=48, L=4),
        "tiny_biases": dict(v=31, d_e=24, M=3, M_kv=1, d_f=13, L=3, b_qkv=1, b_ffn=1),
        "tiny_qkv_bias_only": dict(v=13, d_e=8, M=2, M_kv=2, d_f=6, L=1, b_qkv=1, b_ffn=0),
    },
))
