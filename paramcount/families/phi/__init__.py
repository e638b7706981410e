"""Phi-1, Phi-1.5 and Phi-2 (Gunasekar et al. 2023, "Textbooks Are All You Need"; Li et al. 2023;
Microsoft 2023), as transformers builds them: PhiForCausalLM. KerasHub has no Phi-1/2 (its Phi-3
is :mod:`paramcount.families.phi3`), so transformers is the reference.

A parallel block: one layer norm (γ and β) feeds both the attention (q, k, v and the output
``dense``, all with biases; partial rotary positions; optionally a layer norm of each head's
queries and keys, ``qk_layernorm``) and a GELU MLP (``fc1``, ``fc2``, with biases). A final layer
norm, and an LM head with a bias (its weight untied in the released models).
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Holds
from paramcount.core.symbols import L, M, M_kv, d_e, d_f, qk_norm, tied, v
from paramcount.families._lineages import GQA, HF_DECODER_FIELDS, HF_FFN, HF_TIED_NO, split_heads
from paramcount.model.components.basic import dense, layer_norm
from paramcount.model.components.hf_decoder import attention, causal_lm, qk_norms
from paramcount.model.frameworks import Transformers, own_weights
from paramcount.model.mapping import Field, Table
from paramcount.model.registry import Architecture, register
from paramcount.model.weights import Named

IDS = ("phi",)  # the ids this folder registers


FORMULA = causal_lm(
    "phi",
    block=(layer_norm("norm", match="input_layernorm"),
           attention(qkv_bias=1, o_bias=1, names=("q_proj", "k_proj", "v_proj", "dense"),
                     norms=qk_norms("head", kind="layer", on=qk_norm,
                                    names=("q_layernorm", "k_layernorm"))),
           group("ffn", dense("up", d_e, d_f, bias=1, match="fc1"),
                 dense("down", d_f, d_e, bias=1, match="fc2"), match="mlp",
                 kind="feed-forward")),
    final_norm=layer_norm("final_norm", match="model/final_layernorm"),
    head_bias=1,
    note="parallel blocks: one layer norm feeds attention and the MLP",
)

register(Architecture(
    id="phi",
    title="Phi-1 / 1.5 / 2 (transformers PhiForCausalLM): parallel blocks, biases, partial "
          "rotary, LM head with a bias",
    source="Gunasekar et al. 2023 (Textbooks Are All You Need, phi-1); Li et al. 2023 "
           "(phi-1.5); transformers/models/phi/modeling_phi.py",
    formula=FORMULA,
    required=(v, d_e, M, d_f, L),
    optional={M_kv: M, tied: 0, qk_norm: 0},
    restrictions=(
        split_heads("PhiConfig"),
        Holds(Divisible(d_e, 4 * M),
            why="transformers rotates half of each head by default (partial_rotary_factor 0.5): an even rotary "
                "width needs d_k a multiple of 4"),
        GQA,
    ),
    # transformers rotates half of each head by default (partial_rotary_factor 0.5): an even
    # rotary width needs d_k a multiple of 4
    reference=Named("reference_models.hf:weights", ("phi",)),
    counting="trainable parameters of the causal LM: token embedding, L parallel blocks, final "
             "layer norm, LM head weight (none when tied) and bias",
    presets="phi",
    family="transformers",
    mapping=Table(
        fields=(
            *HF_DECODER_FIELDS,
            HF_FFN,
            Field("qk_norm", hf="qk_layernorm", flag=True, hf_default=0),
            HF_TIED_NO,
        ),
        model_type="phi",
        hf_classes={"PhiForCausalLM": "phi"},
        free=frozenset({
            "hidden_act", "max_position_embeddings", "layer_norm_eps", "rope_theta",
            "rope_scaling", "rope_parameters", "partial_rotary_factor", "attention_dropout",
            "resid_pdrop", "embd_pdrop",
        }),
    ),
    transformers=Transformers(weights=own_weights(FORMULA)),
    frameworks=("transformers",),
    examples={
        "tiny": dict(v=97, d_e=32, M=4, d_f=48, L=2),
        "tiny_gqa_qk_norm_tied": dict(v=31, d_e=48, M=6, M_kv=2, d_f=20, L=3, qk_norm=1,
                                      tied=1),
    },
))
