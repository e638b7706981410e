"""Jamba (Lieber et al. 2024, "Jamba: A Hybrid Transformer-Mamba Language Model"; Jamba Team 2024,
"Jamba-1.5: Hybrid Transformer-Mamba Models at Scale"), as transformers builds it:
JambaForCausalLM. KerasHub has no Jamba, so transformers is the reference.

L pre-norm blocks, each a mixer and a feed-forward, chosen by two independent rules of the
config (:mod:`paramcount.model.components.stacks`): the mixer is grouped-query attention (M query and
M_kv key/value heads of width d_k = d_e/M, no biases) in the L_att blocks with
i % attn_layer_period = attn_layer_offset (one in eight in the released models), else a Mamba
mixer with RMS norms of Δ, B and C (:func:`paramcount.model.components.ssm.jamba_mixer`); the
feed-forward is a mixture of experts in the L_moe blocks with
i % expert_layer_period = expert_layer_offset (every second): a bias-free router d_e → E and E
SwiGLU experts of width d_fe (``intermediate_size``), k per token, stacked as ``gate_up_proj``
and ``down_proj``; else a dense SwiGLU of the same width. No positional encoding at all: the
Mamba layers carry order (the paper, section 6.5). Token embedding, final RMS norm and an untied
LM head.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import sympy

from paramcount.core.formula import group
from paramcount.core.formula import zero
from paramcount.core.hparams import Divisible
from paramcount.core.hparams import Relation
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import E
from paramcount.core.symbols import K_conv
from paramcount.core.symbols import L
from paramcount.core.symbols import L_att
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import b_conv
from paramcount.core.symbols import b_proj
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_fe
from paramcount.core.symbols import d_state
from paramcount.core.symbols import r_dt
from paramcount.core.symbols import tied
from paramcount.core.symbols import v
from paramcount.core.symbols import x_in
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._defaults import family_table
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HEADS_SPLIT_WIDTH
from paramcount.families._lineages import HF_DECODER_FIELDS
from paramcount.families._lineages import HF_EXPERT_FFN_AS_FFN
from paramcount.families._lineages import HF_EXPERTS
from paramcount.families._lineages import HF_HEAD_DIM
from paramcount.families._lineages import HF_TIED_NO
from paramcount.families._lineages import HF_TOP_K
from paramcount.families._lineages import MAMBA_CONV
from paramcount.families._lineages import MAMBA_CONV_BIAS
from paramcount.families._lineages import MAMBA_EXPAND
from paramcount.families._lineages import MAMBA_PROJ_BIAS
from paramcount.families._lineages import MAMBA_STATE
from paramcount.families._lineages import ROUTED_TO_AT_MOST_ALL
from paramcount.families._lineages import split_heads
from paramcount.model.components.basic import embedding
from paramcount.model.components.hf_decoder import attention
from paramcount.model.components.hf_decoder import lm_head
from paramcount.model.components.hf_decoder import routed_experts
from paramcount.model.components.hf_decoder import stacked_expert
from paramcount.model.components.latent import swiglu_hf
from paramcount.model.components.modern import k_act
from paramcount.model.components.modern import rms_norm
from paramcount.model.components.ssm import jamba_mixer
from paramcount.model.components.stacks import PERIODIC_ATTENTION
from paramcount.model.components.stacks import PERIODIC_MOE
from paramcount.model.components.stacks import L_moe
from paramcount.model.components.stacks import crossed
from paramcount.model.components.stacks import periodic
from paramcount.model.frameworks import Transformers
from paramcount.model.frameworks import own_weights
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("jamba",)  # the ids this folder registers


_expert = stacked_expert(d_fe, per_expert=True)
_moe = routed_experts(_expert, match="feed_forward")

FORMULA = group(
    "jamba",
    group("embeddings", embedding("token", v, match="model/embed_tokens"),
          zero("positions", "none: no positional encoding, the Mamba layers carry order",
               kind="position")),
    crossed(
        "blocks",
        common=(rms_norm("mixer_norm", match="input_layernorm"),
                rms_norm("ffn_norm", match="pre_ff_layernorm")),
        kinds=((PERIODIC_ATTENTION, {"attention": (attention(),), "mamba": (jamba_mixer(),)}),
               (PERIODIC_MOE, {"moe": (_moe,),
                               "dense": (swiglu_hf("dense_ffn", d_fe,
                                                   match=r"feed_forward(?=/(?:gate|up|down)_proj)"),)})),
        match=r"model/layers/\d+",
        note="L blocks: attention as the mixer in L_att of them, Mamba in the other L_ssm; "
             "experts as the feed-forward in L_moe, a dense SwiGLU in the other L_dense",
    ),
    rms_norm("final_norm", match="model/final_layernorm"),
    lm_head(),
)


def _normalize(config: Mapping) -> Mapping:
    """mamba_dt_rank "auto" is ⌈d_e / 16⌉, as JambaConfig resolves it."""
    c = dict(config)
    if c.get("mamba_dt_rank") == "auto" and isinstance(c.get("hidden_size"), int):
        c["mamba_dt_rank"] = math.ceil(c["hidden_size"] / 16)
    return c


def _attn_period(hp):
    return periodic(hp["L"], hp["L_att"])[0]


def _attn_offset(hp):
    return periodic(hp["L"], hp["L_att"])[1]


def _expert_period(hp):
    return periodic(hp["L"], hp["L_moe"])[0]


def _expert_offset(hp):
    return periodic(hp["L"], hp["L_moe"])[1]


# symbol ↔ JambaConfig key (no KerasHub argument). L_att and L_moe are read by the rules
# JambaConfig applies; written back as a period and offset marking as many layers (which layers
# changes no count).
MAPPING = family_table(
    "jamba", hf="JambaForCausalLM",
    fields=(
        *HF_DECODER_FIELDS,
        HF_HEAD_DIM,  # read by the attention (getattr; issue 32), refused unless d_e/M
        HF_EXPERT_FFN_AS_FFN, HF_EXPERTS, HF_TOP_K,
        MAMBA_EXPAND, MAMBA_STATE, MAMBA_CONV,
        Field("r_dt", hf="mamba_dt_rank"),
        MAMBA_CONV_BIAS, MAMBA_PROJ_BIAS, HF_TIED_NO,
        Field("L_att", stack=PERIODIC_ATTENTION, options={
            "attn_layer_period": "attn_layer_period", "attn_layer_offset": "attn_layer_offset"}),
        Field("L_moe", stack=PERIODIC_MOE, options={
            "expert_layer_period": "expert_layer_period",
            "expert_layer_offset": "expert_layer_offset", "num_experts": "num_experts"}),
    ),
    restrictions=(
        *Sets.each({"attn_layer_period": _attn_period, "attn_layer_offset": _attn_offset},
            why="JambaConfig places the L_att attention blocks by a period and an offset: the stack written so "
                "(which blocks changes no count)"),
        *Sets.each({"expert_layer_period": _expert_period, "expert_layer_offset": _expert_offset},
            why="JambaConfig places the L_moe sparse blocks by a period and an offset: the stack written so (which "
                "blocks changes no count)"),
    ),
    hf_normalize=_normalize,
)

register(hf_causal_lm(
    "jamba",
    formula=FORMULA,
    required=(v, d_e, M, M_kv, d_fe, L, E),
    # r_dt: ⌈d_e/16⌉ (mamba_dt_rank "auto"), written as a floor
    optional={k_act: 2, x_in: 2, d_state: 16, K_conv: 4, r_dt: sympy.floor((d_e + 15) / 16),
              b_conv: 1, b_proj: 0, tied: 0, L_att: sympy.floor((L + 3) / 8),
              L_moe: sympy.floor(L / 2)},
    restrictions=(
        split_heads("JambaConfig"),
        *Fixed.each(PERIODIC_ATTENTION.fixed(), why="the Mamba blocks are those not attention (L_ssm = L − L_att)"),
        *Fixed.each(PERIODIC_MOE.fixed(), why="the dense blocks are those not sparse (L_dense = L − L_moe)"),
        HEADS_SPLIT_WIDTH,
        GQA,
        ROUTED_TO_AT_MOST_ALL,
        Holds(
            Relation(E, ">=", 2, reason="with one expert JambaConfig builds a dense MLP "
            "in every block"),
        ),
        *Holds.each(PERIODIC_ATTENTION.constraints()),
        *Holds.each(PERIODIC_MOE.constraints()),
    ),
    mapping=MAPPING,
    # prove: every sampled stack must be writable as JambaConfig's period and offset; L a
    # multiple of L_att, and L_att of L_moe, always is
    transformers=Transformers(weights=own_weights(FORMULA),
                              restrictions=(
                                  Holds(Divisible(L, L_att), binds="proof",
                                      why="prove samples only stacks JambaConfig's period and offset can write: L "
                                          "a multiple of L_att always is"),
                                  Holds(Divisible(L_att, L_moe), binds="proof",
                                      why="prove samples only stacks JambaConfig's period and offset can write: "
                                          "L_att a multiple of L_moe always is"),
                              )),
))
