"""GPT-Neo (Black et al. 2021, "GPT-Neo: Large Scale Autoregressive Language Modeling with
Mesh-Tensorflow"), as transformers builds it: GPTNeoForCausalLM. KerasHub has no GPT-Neo, so
transformers is the reference.

GPT-2's layout under other names: a token table and n learned positions (``wpe``), pre-norm
blocks of layer norms (γ and β), multi-head attention whose q, k and v projections have no bias
and whose ``out_proj`` has one, a GELU MLP of width d_f (``c_fc``, ``c_proj``, biases; 4·d_e
when ``intermediate_size`` is null), a final layer norm and the LM head tied to the token table.
Local (windowed) and global attention alternate (``attention_types``): no weight either way.
"""

from __future__ import annotations

from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import n
from paramcount.core.symbols import tied
from paramcount.core.symbols import v
from paramcount.families._decoders import causal_lm_counting
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._lineages import HF_FFN_OR_4D
from paramcount.families._lineages import HF_TIED_YES
from paramcount.families._lineages import HF_VOCAB
from paramcount.families._lineages import HF_WIDTH
from paramcount.families._lineages import full_heads
from paramcount.families._lineages import split_heads
from paramcount.model.components.basic import embedding
from paramcount.model.components.basic import layer_norm
from paramcount.model.components.hf_decoder import attention
from paramcount.model.components.hf_decoder import causal_lm
from paramcount.model.components.hf_decoder import plain_mlp
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("gpt_neo",)  # the ids this folder registers


FORMULA = causal_lm(
    "gpt_neo",
    block=(layer_norm("attention_norm", match="ln_1"),
           attention(o_bias=1, names=("q_proj", "k_proj", "v_proj", "out_proj"),
                     match="attn/attention"),
           layer_norm("ffn_norm", match="ln_2"),
           plain_mlp(bias=1)),
    final_norm=layer_norm("final_norm", match="transformer/ln_f"),
    embed="transformer/wte",
    layers=r"transformer/h/\d+",
    positions=embedding("position", n, match="transformer/wpe", kind="position",
                        note="learned absolute positions, n rows"),
    note="pre-norm blocks: attention (bias on the output projection only), GELU MLP",
)


def _attention_types(hp) -> list:
    """Every block global (``[[["global"], L]]``): local and global attention hold the same
    weights, and GPTNeoConfig needs one type per block."""
    return [[["global"], hp["L"]]]


register(hf_causal_lm(
    "gpt_neo",
    hf="GPTNeoForCausalLM",
    formula=FORMULA,
    required=(v, n, d_e, M, L),
    optional={d_f: 4 * d_e, tied: 1},
    restrictions=(
        split_heads("GPTNeoConfig", "hidden_size", "num_heads"),
        full_heads("GPT-Neo"),
        Holds(Divisible(d_e, M), why="GPTNeoSelfAttention refuses an embed_dim not divisible by num_heads"),
    ),
    counting=causal_lm_counting("L blocks", "layer norm", ", as released",
                                embeddings="token and position embeddings"),
    fields=(HF_VOCAB, Field("n", hf="max_position_embeddings"), Field("L", hf="num_layers"),
            Field("M", hf="num_heads"), HF_WIDTH, HF_FFN_OR_4D, HF_TIED_YES),
    table_restrictions=(
        Sets("attention_types", _attention_types,
            why="GPTNeoConfig takes the local/global alternation as attention_types (no weights either way)"),
    ),
    base_free=frozenset(),  # GPTNeoConfig names its keys apart
))
