"""Mamba and Mamba-2 language models (Gu & Dao 2023, "Mamba: Linear-Time Sequence Modeling with
Selective State Spaces"; Dao & Gu 2024, "Transformers are SSMs"), as transformers builds them:
MambaForCausalLM and Mamba2ForCausalLM. KerasHub has no Mamba, so transformers is the reference.

No attention and no feed-forward: L residual blocks, each an RMS norm and a state-space mixer
(:mod:`paramcount.model.components.ssm`), then a final RMS norm. The token embedding is tied to the LM
head in the Mamba checkpoints (tied = 1), untied in Mamba-Codestral.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import sympy

from paramcount.core.formula import Term
from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.symbols import G_ssm
from paramcount.core.symbols import H_ssm
from paramcount.core.symbols import K_conv
from paramcount.core.symbols import L
from paramcount.core.symbols import b_conv
from paramcount.core.symbols import b_proj
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_ssm
from paramcount.core.symbols import d_state
from paramcount.core.symbols import r_dt
from paramcount.core.symbols import tied
from paramcount.core.symbols import v
from paramcount.core.symbols import x_in
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._defaults import family_table
from paramcount.families._lineages import HF_LAYERS
from paramcount.families._lineages import HF_TIED_NO
from paramcount.families._lineages import HF_TIED_YES
from paramcount.families._lineages import HF_VOCAB
from paramcount.families._lineages import HF_WIDTH
from paramcount.families._lineages import SSM_CONV
from paramcount.families._lineages import SSM_CONV_BIAS
from paramcount.families._lineages import SSM_GROUPS
from paramcount.families._lineages import SSM_PROJ_BIAS
from paramcount.model.components.basic import embedding
from paramcount.model.components.modern import rms_norm
from paramcount.model.components.ssm import mamba2_mixer
from paramcount.model.components.ssm import mamba_mixer
from paramcount.model.components.ssm import ssd_chunk
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("mamba", "mamba2")  # the ids this folder registers


def _tree(name: str, mixer: Term) -> Term:
    return group(
        name,
        embedding("token", v, match="backbone/embeddings"),
        group("blocks", rms_norm("norm", match=r"\d+/norm"), mixer, times=L,
              match=r"backbone/layers/\d+"),
        rms_norm("final_norm", match="backbone/norm_f"),
        leaf("head", (1 - tied) * d_e * v, match="lm_head", kind="head", macs=d_e * v,
             note="output projection: none when tied to the token embedding (the Mamba "
                  "checkpoints)"),
    )


def _auto_rank(config: Mapping) -> Mapping:
    """time_step_rank "auto" is ⌈d_e / 16⌉, as MambaConfig resolves it."""
    c = dict(config)
    if c.get("time_step_rank") == "auto" and isinstance(c.get("hidden_size"), int):
        c["time_step_rank"] = math.ceil(c["hidden_size"] / 16)
    return c


_COMMON = (
    HF_VOCAB, HF_LAYERS, HF_WIDTH,
    Field("x_in", hf="expand"),
    Field("d_state", hf="state_size"),
    SSM_CONV, SSM_CONV_BIAS, SSM_PROJ_BIAS,
)
# the rest change no count (Mamba's intermediate_size is read: MAMBA_WIDTH)
_FREE = frozenset({
    "hidden_act", "layer_norm_epsilon", "residual_in_fp32", "time_step_scale", "time_step_min",
    "time_step_max", "time_step_init_scheme", "time_step_floor", "time_step_limit",
    "rescale_prenorm_residual", "use_mambapy", "use_associative_scan", "n_layer",
    "fused_add_norm", "rms_norm", "pad_vocab_size_multiple", "chunk_size",
    "norm_before_gate",
})
# MambaConfig derives intermediate_size = expand·hidden_size only when the config gives none: a
# given one is the mixer's width (issue 32: 201 beside expand 2 and hidden_size 133 builds 201
# wide). Read after expand, so it wins; a width that is no multiple of hidden_size is refused,
# the formula's inner width being x_in·d_e.
MAMBA_WIDTH = Field("x_in", hf="intermediate_size", hf_per="d_e")
_TIED = "the token embedding doubles as the LM head (counted once)"

MAMBA_FORMULA = _tree("mamba", mamba_mixer())
register(hf_causal_lm(
    "mamba",
    formula=MAMBA_FORMULA,
    required=(v, d_e, L),
    # r_dt: ⌈d_e/16⌉ (time_step_rank "auto"), written as a floor
    optional={x_in: 2, d_state: 16, K_conv: 4, r_dt: sympy.floor((d_e + 15) / 16), b_conv: 1,
              b_proj: 0, tied: 1},
    restrictions=(
    ),
    counting="trainable parameters of the causal LM: token embedding, L blocks (RMS norm and "
             "selective-scan mixer), final RMS norm, and the LM head unless tied ("
             + _TIED + ")",
    mapping=family_table(
        "mamba", hf="MambaForCausalLM",
        fields=(*_COMMON, MAMBA_WIDTH, Field('r_dt', hf='time_step_rank'), HF_TIED_YES),
        free=_FREE,
        hf_normalize=_auto_rank,
    ),
))

MAMBA2_FORMULA = _tree("mamba2", mamba2_mixer())
register(hf_causal_lm(
    "mamba2",
    formula=MAMBA2_FORMULA,
    required=(v, d_e, L, H_ssm),
    optional={x_in: 2, d_state: 128, K_conv: 4, G_ssm: 1, b_conv: 1, b_proj: 0, tied: 1},
    restrictions=(
        Fixed(d_ssm, x_in * d_e / H_ssm, why="the Mamba-2 inner width x_in·d_e is split into H_ssm heads"),
        Holds(Divisible(x_in * d_e, H_ssm), why="the Mamba-2 inner width x_in·d_e is split into whole heads"),
    ),
    # transformers' validation: expand·hidden_size = num_heads·head_dim
    counting="trainable parameters of the causal LM: token embedding, L blocks (RMS norm and "
             "SSD mixer), final RMS norm, and the LM head unless tied (" + _TIED + ")",
    mapping=family_table(
        "mamba2", hf="Mamba2ForCausalLM",
        fields=(*_COMMON, Field('H_ssm', hf='num_heads'), Field('d_ssm', hf='head_dim'), SSM_GROUPS, HF_TIED_NO),
        free=_FREE | {"time_step_rank", "intermediate_size"},
    ),
    cost_config=ssd_chunk("chunk_size", 256),
))
