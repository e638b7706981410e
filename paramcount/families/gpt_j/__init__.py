"""GPT-J (Wang & Komatsuzaki 2021, "GPT-J-6B"), as transformers builds it: GPTJForCausalLM.
KerasHub has no GPT-J, so transformers is the reference.

A parallel block (as GPT-NeoX's, before it): one layer norm feeds both the attention (q, k, v and
``out_proj``, no biases; rotary positions on the first ``rotary_dim`` channels of each head, no
weights) and a GELU MLP of width d_f (``fc_in``, ``fc_out``, with biases; 4·d_e when ``n_inner``
is null). A final layer norm, and an untied LM head with a bias.
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Fixed, Holds
from paramcount.core.symbols import L, M, M_kv, d_e, d_f, tied, v
from paramcount.families._lineages import HF_TIED_NO, HF_VOCAB, split_heads
from paramcount.model.components.basic import dense, layer_norm
from paramcount.model.components.hf_decoder import attention, causal_lm
from paramcount.model.frameworks import Transformers, own_weights
from paramcount.model.mapping import Field, Table
from paramcount.model.registry import Architecture, register
from paramcount.model.weights import Named

IDS = ("gpt_j",)  # the ids this folder registers


FORMULA = causal_lm(
    "gpt_j",
    block=(layer_norm("norm", match="ln_1"),
           attention(names=("q_proj", "k_proj", "v_proj", "out_proj"), match="attn"),
           group("ffn", dense("up", d_e, d_f, bias=1, match="fc_in"),
                 dense("down", d_f, d_e, bias=1, match="fc_out"), match="mlp",
                 kind="feed-forward")),
    final_norm=layer_norm("final_norm", match="transformer/ln_f"),
    head_bias=1,
    embed="transformer/wte",
    layers=r"transformer/h/\d+",
    note="parallel blocks: one layer norm feeds attention and the MLP",
)

register(Architecture(
    id="gpt_j",
    title="GPT-J (transformers GPTJForCausalLM): parallel blocks, partial rotary, bias-free "
          "attention, LM head with a bias",
    source="Wang & Komatsuzaki 2021 (GPT-J-6B, mesh-transformer-jax); "
           "transformers/models/gptj/modeling_gptj.py",
    formula=FORMULA,
    required=(v, d_e, M, L),
    optional={d_f: 4 * d_e, tied: 0},
    restrictions=(
        split_heads("GPTJConfig", "n_embd", "n_head"),
        Fixed(M_kv, M, why="GPT-J has full multi-head attention (a key/value head per query head)"),
        Holds(Divisible(d_e, M), why="GPTJAttention refuses an embed_dim not divisible by num_attention_heads"),
    ),
    reference=Named("reference_models.hf:weights", ("gpt_j",)),
    counting="trainable parameters of the causal LM: token embedding, L parallel blocks, final "
             "layer norm, LM head weight (none when tied) and bias",
    presets="gpt_j",
    family="transformers",
    mapping=Table(
        fields=(
            HF_VOCAB,
            Field("L", hf="n_layer"),
            Field("M", hf="n_head"),
            Field("d_e", hf="n_embd"),
            Field("d_f", hf="n_inner", hf_default=4 * d_e),
            HF_TIED_NO,
        ),
        model_type="gptj",
        hf_classes={"GPTJForCausalLM": "gpt_j"},
        free=frozenset({
            "n_positions", "rotary_dim", "activation_function", "resid_pdrop", "embd_pdrop",
            "attn_pdrop", "layer_norm_epsilon", "rotary", "gradient_checkpointing",
            "scale_attn_weights", "tokenizer_class", "task_specific_params",
        }),
    ),
    transformers=Transformers(weights=own_weights(FORMULA)),
    frameworks=("transformers",),
    examples={
        "tiny": dict(v=97, d_e=32, M=4, L=2),
        "tiny_inner_tied": dict(v=31, d_e=24, M=3, d_f=20, L=3, tied=1),
    },
))
