"""nanoGPT's GPT (Karpathy, github.com/karpathy/nanoGPT): GPT-2's structure with a bias switch.

Token (``wte``) and learned position (``wpe``) embeddings, L pre-LN blocks and a final layer norm,
the head tied to ``wte``. Each block: layer norm, one fused projection to queries, keys and values
(``c_attn``, d_e → 3·d_e) and the output projection (``c_proj``), layer norm, and the GELU MLP
(``c_fc`` d_e → d_f, ``c_proj`` back). ``GPTConfig.bias`` (``bias`` here) gives *every* linear
layer and layer norm its bias, or none (nanoGPT's default, bias = False: its LayerNorm then has a
scale and no shift). With ``bias = 1`` it is GPT-2 exactly, as KerasHub's GPT2CausalLM counts it.

The head count splits the fused projection into heads and holds no weights (nanoGPT asserts
``n_embd % n_head == 0``). KerasHub's GPT2Backbone has no bias switch, so the reference is a plain
``keras.layers`` model with nanoGPT's structure and names.
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.formula import zero
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Holds
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import bias
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import n
from paramcount.core.symbols import v
from paramcount.model.components import dense
from paramcount.model.components import layer_norm
from paramcount.model.components.encoders import token_position_embeddings
from paramcount.model.registry import Architecture
from paramcount.model.registry import register

IDS = ("nanogpt",)  # the ids this folder registers


register(Architecture(
    id="nanogpt",
    formula=group(
        "nanogpt",
        token_position_embeddings(norm=None, token_match="wte", position_match="wpe"),
        group(
            "blocks",
            layer_norm("norm_1", beta=bias, match="ln_1"),
            group(
                "attention",
                dense("query_key_value", d_e, 3 * d_e, bias=bias, match="c_attn",
                      note="fused: queries, keys and values of all M heads"),
                dense("output", d_e, d_e, bias=bias, match="c_proj"),
                match="attn",
                kind="attention",
            ),
            layer_norm("norm_2", beta=bias, match="ln_2"),
            group(
                "mlp",
                dense("up", d_e, d_f, bias=bias, match="mlp_c_fc"),
                dense("down", d_f, d_e, bias=bias, match="mlp_c_proj"),
                kind="feed-forward",
            ),
            times=L,
            match=r"h_\d+",
        ),
        layer_norm("final_norm", beta=bias, match="ln_f"),
        zero("head", "tied: lm_head.weight is wte.weight (counted once)", kind="head"),
    ),
    required=(v, n, d_e, M, L),
    optional={d_f: 4 * d_e, bias: 0},
    restrictions=(
        Holds(Divisible(d_e, M), why="nanoGPT's CausalSelfAttention asserts n_embd % n_head == 0"),
    ),
    reference="reference_models.nanogpt:gpt",
    presets="nanogpt",
    family="plain_keras",
))
