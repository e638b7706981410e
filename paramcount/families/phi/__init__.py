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
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import qk_norm
from paramcount.core.symbols import tied
from paramcount.core.symbols import v
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._decoders import parallel_causal_lm
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HF_CAUSAL_LM_FIELDS
from paramcount.families._lineages import HF_TIED_NO
from paramcount.families._lineages import split_heads
from paramcount.model.components.basic import dense
from paramcount.model.components.hf_decoder import attention
from paramcount.model.components.hf_decoder import qk_norms
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("phi",)  # the ids this folder registers


FORMULA = parallel_causal_lm(
    "phi",
    attention(qkv_bias=1, o_bias=1, names=("q_proj", "k_proj", "v_proj", "dense"),
              norms=qk_norms("head", kind="layer", on=qk_norm, names=("q_layernorm", "k_layernorm"))),
    group("ffn", dense("up", d_e, d_f, bias=1, match="fc1"), dense("down", d_f, d_e, bias=1, match="fc2"),
          match="mlp", kind="feed-forward"),
    final_norm="model/final_layernorm", head_bias=1,
    note="parallel blocks: one layer norm feeds attention and the MLP",
)

register(hf_causal_lm(
    "phi",
    hf="PhiForCausalLM",
    formula=FORMULA,
    required=(v, d_e, M, d_f, L),
    optional={M_kv: M, tied: 0, qk_norm: 0},
    restrictions=(
        split_heads("PhiConfig"),
        Holds(Divisible(d_e, 4 * M), binds="forward",
            why="transformers rotates half of each head by default (partial_rotary_factor 0.5): a forward pass "
                "needs an even rotary width, d_k a multiple of 4"),
        GQA,
    ),
    fields=(*HF_CAUSAL_LM_FIELDS, Field("qk_norm", hf="qk_layernorm", flag=True, hf_default=0), HF_TIED_NO),
))
