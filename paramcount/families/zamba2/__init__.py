"""Zamba 2 (Glorioso et al. 2024, "The Zamba2 Suite: Technical Report"), as transformers builds it:
Zamba2ForCausalLM. KerasHub has no Zamba 2, so transformers is the reference.

A Mamba-2 backbone of L layers (an RMS norm and a Mamba-2 mixer each:
:func:`paramcount.model.components.ssm.mamba2_mixer`, inner width x_in·d_e in H_ssm heads). In the L_hyb
*hybrid* layers (``layers_block_type``) a shared transformer block runs first, on the hidden state
concatenated with the input embeddings (width 2·d_e): an RMS norm of 2·d_e, attention (M query
and M_kv key/value heads of width d_k = 2·d_e/M, from 2·d_e, out to d_e), an RMS norm and a GELU
MLP (gate and up fused, d_e → 2·d_f → d_e); its output passes a per-layer d_e × d_e ``linear``
into the Mamba layer.

**Shared weights, counted once.** There are only B_mem distinct shared blocks
(``num_mem_blocks``): hybrid layer j reuses block j mod B_mem, the very same tensors, so the tree
counts them B_mem times, not L_hyb times (transformers ties the later layers' blocks to the first
B_mem, and its parameter count is the same). What is not shared is specialised per layer: each
hybrid layer has its own low-rank adapter (rank r_ad) on the MLP's fused gate-up projection, and
with ``use_shared_attention_adapter`` on the attention's q, k and v as well; they live inside the
shared blocks but one per hybrid layer, so they count L_hyb times. Rotary positions in the shared
attention (``use_mem_rope``) or none; token embedding, final RMS norm, and the LM head tied to
the embedding (transformers ties the shared blocks through the same switch: with
``tie_word_embeddings`` false it builds one unshared copy per hybrid layer, a model this formula
does not describe and refuses).
"""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.formula import zero
from paramcount.core.hparams import Divisible
from paramcount.core.hparams import Relation
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import B_mem
from paramcount.core.symbols import G_ssm
from paramcount.core.symbols import H_ssm
from paramcount.core.symbols import K_conv
from paramcount.core.symbols import L
from paramcount.core.symbols import L_hyb
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import T
from paramcount.core.symbols import att_ad
from paramcount.core.symbols import b_conv
from paramcount.core.symbols import b_proj
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import d_state
from paramcount.core.symbols import r_ad
from paramcount.core.symbols import v
from paramcount.core.symbols import x_in
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._defaults import family_table
from paramcount.families._defaults import not_formulated
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HF_DECODER_FIELDS
from paramcount.families._lineages import HF_FFN_OR_4D
from paramcount.families._lineages import HF_HEAD_DIM
from paramcount.families._lineages import MAMBA_CONV
from paramcount.families._lineages import MAMBA_EXPAND
from paramcount.families._lineages import MAMBA_STATE
from paramcount.model.components.basic import dense
from paramcount.model.components.basic import embedding
from paramcount.model.components.modern import rms_norm
from paramcount.model.components.ssm import mamba2_mixer
from paramcount.model.components.ssm import ssd_chunk
from paramcount.model.cost import runs
from paramcount.model.cost import with_kept
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("zamba2",)  # the ids this folder registers


D_ATT = 2 * d_e  # the shared block reads the hidden state and the input embeddings, concatenated


def _adapter(name: str, width_in, width_out, match: str, on=1):
    return group(name,
                 leaf("down", on * width_in * r_ad, match=r"\d+/0", kind="projection",
                      note="into the adapter's rank r_ad", macs=on * width_in * r_ad),
                 leaf("up", on * r_ad * width_out, match=r"\d+/1", kind="projection",
                      note="back out of rank r_ad", macs=on * r_ad * width_out),
                 match=match)


# each of the B_mem stored blocks runs in L_hyb/B_mem of the hybrid layers (in all, L_hyb runs),
# its attention caching T positions at each
_shared = with_kept(runs(group(
    "shared_block",
    rms_norm("attention_norm", D_ATT, match="input_layernorm"),
    group("attention",
          dense("query", D_ATT, M * d_k, bias=0, match="q_proj"),
          dense("key", D_ATT, M_kv * d_k, bias=0, match="k_proj"),
          dense("value", D_ATT, M_kv * d_k, bias=0, match="v_proj"),
          dense("output", M * d_k, d_e, bias=0, match="o_proj"),
          match="self_attn", kind="attention"),
    rms_norm("ffn_norm", match="pre_ff_layernorm"),
    group("mlp",
          dense("gate_up", d_e, 2 * d_f, bias=b_proj, match="gate_up_proj",
                note="gate and up fused, d_e → 2·d_f"),
          dense("down", d_f, d_e, bias=b_proj, match="down_proj"),
          match="feed_forward", kind="feed-forward"),
    times=B_mem,
    match=r"model/layers/\d+/shared_transformer",
    note="B_mem distinct blocks, each reused by every B_mem-th hybrid layer: counted once each",
), L_hyb / B_mem), T * L_hyb / B_mem)

_adapters = group(
    "adapters",
    _adapter("mlp", d_e, 2 * d_f, r"feed_forward/gate_up_proj_adapter_list"),
    _adapter("query", D_ATT, D_ATT, r"self_attn/linear_q_adapter_list", att_ad),
    _adapter("key", D_ATT, D_ATT, r"self_attn/linear_k_adapter_list", att_ad),
    _adapter("value", D_ATT, D_ATT, r"self_attn/linear_v_adapter_list", att_ad),
    times=L_hyb,
    match=r"model/layers/\d+/shared_transformer",
    kind="projection",
    note="one set per hybrid layer (held inside the shared blocks, not shared)",
)

FORMULA = group(
    "zamba2",
    group("embeddings", embedding("token", v, match="model/embed_tokens"),
          zero("positions", "rotary in the shared attention (use_mem_rope) or none: no weights "
                            "either way", kind="position")),
    group("blocks",
          rms_norm("mamba_norm", match=r"(?<!shared_transformer/)input_layernorm"),
          mamba2_mixer("mamba", match="mamba"),
          times=L, match=r"model/layers/\d+", note="L Mamba-2 layers"),
    group("hybrid", dense("linear", d_e, d_e, bias=0, match="linear",
                          note="the shared block's output into the layer's Mamba, per layer"),
          times=L_hyb, match=r"model/layers/\d+", kind="projection",
          note="L_hyb of the layers also run a shared block"),
    _shared,
    _adapters,
    rms_norm("final_norm", match="model/final_layernorm"),
    leaf("head", 0, match="lm_head", kind="head", macs=d_e * v,
         note="tied to the token embedding (counted there): Zamba2ForCausalLM shares its "
              "blocks only with the embedding tied"),
)

_LEGACY = {"mamba": "linear_attention"}
# transformers ties the shared blocks through the same switch as the head: untied, every hybrid
# layer builds its own copy of its block (with all of that block's adapters), which this formula
# does not describe
_UNTIED = ("Zamba2ForCausalLM shares the blocks only with tie_word_embeddings true; untied, it "
           "builds an unshared copy per hybrid layer (not formulated)")


# Zamba2Config keeps an attention_hidden_size the config gives, and the shared block is built
# that wide (issue 32)
_WIDE = ("the shared attention block reads 2·hidden_size (the hidden state and the input "
         "embeddings, concatenated); Zamba2Config builds another width given, which the formula "
         "does not describe")


def _normalize(config: Mapping) -> Mapping:
    """Legacy layer names (mamba) as transformers remaps them; attention_hidden_size as null
    where it is the 2·hidden_size Zamba2Config derives (any other is refused: _WIDE); more
    shared blocks than hybrid layers as one a hybrid layer, the model Zamba2ForCausalLM builds
    (hybrid layer j keeps block j mod num_mem_blocks of those built before it: each its own,
    the rest never built, and each block's adapters are those of its one layer)."""
    c = dict(config)
    if c.get("attention_hidden_size") is not None and isinstance(c.get("hidden_size"), int) \
            and c["attention_hidden_size"] == 2 * c["hidden_size"]:
        c["attention_hidden_size"] = None
    if isinstance(c.get("layers_block_type"), list):
        c["layers_block_type"] = [_LEGACY.get(t, t) if isinstance(t, str) else t
                                  for t in c["layers_block_type"]]
        hybrid = c["layers_block_type"].count("hybrid")
        blocks = c.get("num_mem_blocks")
        if type(blocks) is int and 0 < hybrid < blocks:
            c["num_mem_blocks"] = hybrid
    return c


MAPPING = family_table(
    "zamba2", hf="Zamba2ForCausalLM",
    fields=(
        *HF_DECODER_FIELDS, HF_FFN_OR_4D, MAMBA_EXPAND,
        Field("H_ssm", hf="n_mamba_heads"),
        Field("G_ssm", hf="mamba_ngroups"),
        MAMBA_STATE, MAMBA_CONV,
        Field("b_proj", hf="add_bias_linear", flag=True, hf_default=0),
        Field("B_mem", hf="num_mem_blocks"),
        Field("r_ad", hf="adapter_rank"),
        Field("att_ad", hf="use_shared_attention_adapter", flag=True, hf_default=0),
        Field("L_hyb", hf="layers_block_type", kinds=("hybrid", "linear_attention")),
        # Zamba2Config derives the shared attention's head width (2·d_e/M) unless the config
        # gives it, and then builds that (issue 32); head_dim is its other name
        Field("d_k", hf="attention_head_dim"),
        HF_HEAD_DIM,
    ),
    restrictions=(
        Sets("tie_word_embeddings", True, why="Zamba 2's LM head is the token embedding (tied)"),
        Requires("tie_word_embeddings", (True,), why=_UNTIED),
        Requires("attention_hidden_size", (), why=_WIDE),
    ),
    # the convolution always has its bias (Zamba2MambaMixer ignores use_conv_bias)
    hf_normalize=_normalize,
)

register(hf_causal_lm(
    "zamba2",
    formula=FORMULA,
    required=(v, d_e, M, L, L_hyb, H_ssm),
    optional={M_kv: M, d_f: 4 * d_e, x_in: 2, G_ssm: 1, d_state: 64, K_conv: 4, b_proj: 0,
              B_mem: 1, r_ad: 128, att_ad: 0},
    restrictions=(
        Fixed(d_k, 2 * d_e / M,
            why="the shared block attends from the concatenation of hidden state and embeddings (2·d_e) in M heads"),
        Fixed(b_conv, 1, why="Zamba2MambaMixer's convolution always has its bias, whatever use_conv_bias says"),
        Holds(Divisible(d_e, M),
              why="Zamba2Config floors the head width 2·hidden_size // heads: d_e a multiple of M keeps it whole "
                  "and even"),
        GQA,
        Holds(Relation(L_hyb, "<=", L, reason="the hybrid layers are some of the layers")),
        Holds(
            Relation(B_mem, "<=", L_hyb, reason="every shared block is used by a hybrid "
            "layer (else it is never built)"),
        ),
    ),
    mapping=MAPPING,
    cost_config=ssd_chunk("chunk_size", 256),
))

# memory and compute: what the trees do not formulate yet (frameworks.unformulated)
register(not_formulated("zamba2", kv=(
    "the shared attention's keys and values sit in the hybrid layer's cache layer beside its "
    "Mamba states, but the shared attention holds no layer index (layer_idx -1, the index "
    "passed at call time), so the measurement attributes them to the layer's Mamba mixer "
    "(<mamba>/cache), not to the shared block's attention the cache tree names; the values "
    "agree (B·T·2·M_kv·d_k per hybrid layer beside B·(conv_dim·K_conv + d_in·N) per layer)")),
    replace=True)
