"""SmolLM3 (Hugging Face 2025) as KerasHub builds it: keras_hub.models.SmolLM3Backbone.

Llama-style: token embedding (tied head), L pre-norm blocks of grouped-query attention and a
SwiGLU feed-forward, RMS norms. Every fourth layer skips rotary positions ("NoPE"), which changes
no weight. Two KerasHub particulars the count shows:

- the output projection ``o_proj`` never has a bias, whatever ``attention_bias`` (zeta) says;
- each layer's rotary embedding keeps its inverse frequencies as a *non-trainable* weight of
  ⌈d_k/2⌉ entries (on every layer, the NoPE ones too). KerasHub's published figure includes them.

The layers build ``o_proj`` and ``rotary_emb`` outside their own name scope, so those weights'
paths carry no ``transformer_layer_i`` segment; the block's ``match`` admits them by name.
"""

from __future__ import annotations

import sympy

from paramcount.components import dense, embedding
from paramcount.components.modern import gated_feed_forward, rms_norm
from paramcount.formula import group, leaf, zero
from paramcount.hparams import Divisible
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, M_kv, d_e, d_f, d_k, declare, v, zeta

ffn_bias = declare("ffn_bias", "1 when the feed-forward projections carry biases", flag=True)

register(Architecture(
    id="smollm3",
    title="SmolLM3 backbone (keras_hub.models.SmolLM3Backbone): GQA, SwiGLU, NoPE layers",
    source="Hugging Face 2025, 'SmolLM3: smol, multilingual, long-context reasoner' (blog and "
           "model card); keras_hub/src/models/smollm3/smollm3_{backbone,layers,utils}.py",
    formula=group(
        "smollm3",
        group(
            "embeddings",
            embedding("token", v, match="token_embedding"),
        ),
        group(
            "blocks",
            rms_norm("norm_1", match="input_layernorm"),
            group(
                "attention",
                dense("query", d_e, M * d_k, bias=zeta, match="q_proj"),
                dense("key", d_e, M_kv * d_k, bias=zeta, match="k_proj"),
                dense("value", d_e, M_kv * d_k, bias=zeta, match="v_proj"),
                dense("output", M * d_k, d_e, bias=0, match="o_proj"),
                leaf("rotary_inv_freq", sympy.ceiling(d_k / 2), match="rotary_emb",
                     trainable=False,
                     note="rotary inverse frequencies kept as a non-trainable weight, ⌈d_k/2⌉ "
                          "per layer (NoPE layers too)"),
            ),
            rms_norm("norm_2", match="post_attention_layernorm"),
            gated_feed_forward(bias=ffn_bias, match="mlp",
                               names=("gate_proj", "up_proj", "down_proj")),
            times=L,
            match=r"transformer_layer_\d+|o_proj(?:_\d+)?|rotary_emb(?:_\d+)?",
        ),
        rms_norm("final_norm", match="sequence_output_layernorm"),
        zero("head", "tied: the output projection is the token embedding, transposed"),
    ),
    required=(v, d_e, M, d_f, L),
    optional={M_kv: M, zeta: 0, ffn_bias: 0},
    fixed={d_k: d_e / M},
    constraints=(Divisible(d_e, M), Divisible(M, M_kv)),
    reference="reference_models.smollm3:backbone",
    counting="trainable weights of the backbone (token embedding, also the tied head; L blocks; "
             "final norm); the rotary inverse frequencies are counted apart as non-trainable",
    presets="smollm3",
    keras_hub_metadata=True,
    family="keras_hub",
    examples={
        "tiny": dict(v=100, d_e=32, M=4, M_kv=2, d_f=64, L=4),
        "biases": dict(v=100, d_e=32, M=4, M_kv=1, d_f=48, L=2, zeta=1, ffn_bias=1),
        "odd_sizes": dict(v=997, d_e=45, M=5, d_f=13, L=3, zeta=1, ffn_bias=0),
    },
))
