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
from paramcount.core.restrictions import Holds
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import tied
from paramcount.core.symbols import v
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._decoders import parallel_causal_lm
from paramcount.families._lineages import HF_TIED_NO
from paramcount.families._lineages import HF_VOCAB
from paramcount.families._lineages import full_heads
from paramcount.families._lineages import split_heads
from paramcount.model.components.basic import dense
from paramcount.model.components.hf_decoder import attention
from paramcount.model.frameworks import Transformers
from paramcount.model.frameworks import own_weights
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("gpt_j",)  # the ids this folder registers


FORMULA = parallel_causal_lm(
    "gpt_j",
    attention(names=("q_proj", "k_proj", "v_proj", "out_proj"), match="attn"),
    group("ffn", dense("up", d_e, d_f, bias=1, match="fc_in"), dense("down", d_f, d_e, bias=1, match="fc_out"),
          match="mlp", kind="feed-forward"),
    norm="ln_1", final_norm="transformer/ln_f", head_bias=1, embed="transformer/wte", layers=r"transformer/h/\d+",
    note="parallel blocks: one layer norm feeds attention and the MLP",
)

register(hf_causal_lm(
    "gpt_j",
    hf="GPTJForCausalLM", model_type="gptj",
    formula=FORMULA,
    # the memory-and-compute measurement's forward rotates rotary_dim channels of each head (64
    # by default, wider than a small set's heads, which it cannot broadcast over): 2, the
    # narrowest even width; the rotation multiplies elementwise, so no count depends on it
    transformers=Transformers(weights=own_weights(FORMULA), cost_config={"rotary_dim": 2}),
    required=(v, d_e, M, L),
    optional={d_f: 4 * d_e, tied: 0},
    restrictions=(
        split_heads("GPTJConfig", "n_embd", "n_head"),
        full_heads("GPT-J"),
        Holds(Divisible(d_e, M), why="GPTJAttention refuses an embed_dim not divisible by num_attention_heads"),
    ),
    fields=(HF_VOCAB, Field("L", hf="n_layer"), Field("M", hf="n_head"), Field("d_e", hf="n_embd"),
            Field("d_f", hf="n_inner", hf_default=4 * d_e), HF_TIED_NO),
    base_free=frozenset(),  # GPTJConfig's keys are GPT-2's
))
