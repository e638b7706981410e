"""Granite 4.0 (IBM 2025, "Granite 4.0"), as transformers builds it: GraniteMoeHybridForCausalLM
(model_type ``granitemoehybrid``). KerasHub has no Granite 4, so transformers is the reference.

L pre-norm blocks. The mixer is grouped-query attention (M query and M_kv key/value heads of
width d_k = d_e/M, biases on all four projections when ``attention_bias``) in the L_att blocks
``layer_types`` marks as attention, else a Mamba-2 mixer
(:func:`paramcount.model.components.ssm.mamba2_mixer`: inner width x_in·d_e in H_ssm heads). Every
block then has a shared SwiGLU MLP of width d_fs (``shared_intermediate_size``: gate and up
fused in ``input_linear``) and, in the mixture-of-experts models (moe = 1: num_local_experts >
0), beside it a bias-free router d_e → E and E SwiGLU experts of width d_fe, k per token. The
dense models (H-Micro, Micro) are the same blocks with the shared MLP alone; Granite-4.0-Micro
is all attention. Positions are rotary or none (``position_embedding_type``): no weights either
way. Token embedding, final RMS norm and an LM head, tied in the released models.
"""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.formula import zero
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import E
from paramcount.core.symbols import G_ssm
from paramcount.core.symbols import H_ssm
from paramcount.core.symbols import K_conv
from paramcount.core.symbols import L
from paramcount.core.symbols import L_att
from paramcount.core.symbols import L_ssm
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import b_att
from paramcount.core.symbols import b_conv
from paramcount.core.symbols import b_proj
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_fe
from paramcount.core.symbols import d_fs
from paramcount.core.symbols import d_ssm
from paramcount.core.symbols import d_state
from paramcount.core.symbols import moe
from paramcount.core.symbols import tied
from paramcount.core.symbols import v
from paramcount.core.symbols import x_in
from paramcount.families._decoders import RMS_CAUSAL_LM_FREE
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._defaults import family_table
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HEADS_SPLIT_WIDTH
from paramcount.families._lineages import HF_ATTENTION_BIAS
from paramcount.families._lineages import HF_DECODER_FIELDS
from paramcount.families._lineages import HF_EXPERT_FFN_AS_FFN
from paramcount.families._lineages import HF_HEAD_DIM_IMPLIED
from paramcount.families._lineages import HF_LOCAL_ROUTING
from paramcount.families._lineages import HF_TIED_NO
from paramcount.families._lineages import MAMBA_CONV
from paramcount.families._lineages import MAMBA_CONV_BIAS
from paramcount.families._lineages import MAMBA_EXPAND
from paramcount.families._lineages import MAMBA_GROUPS
from paramcount.families._lineages import MAMBA_HEADS
from paramcount.families._lineages import MAMBA_PROJ_BIAS
from paramcount.families._lineages import MAMBA_STATE
from paramcount.families._lineages import ROUTED_TO_AT_MOST_ALL
from paramcount.families._lineages import split_heads
from paramcount.model.components.basic import embedding
from paramcount.model.components.hf_decoder import TIED_TO_TOKENS
from paramcount.model.components.hf_decoder import attention
from paramcount.model.components.hf_decoder import lm_head
from paramcount.model.components.hf_decoder import routed_experts
from paramcount.model.components.hf_decoder import stacked_expert
from paramcount.model.components.modern import k_act
from paramcount.model.components.modern import rms_norm
from paramcount.model.components.ssm import mamba2_mixer
from paramcount.model.components.ssm import ssd_chunk
from paramcount.model.components.stacks import LayerKinds
from paramcount.model.components.stacks import repeat
from paramcount.model.frameworks import Transformers
from paramcount.model.frameworks import own_weights
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("granitemoehybrid",)  # the ids this folder registers


def _mixer(i: int, *, layer_types=()) -> str:
    return "attention" if i < len(layer_types) and layer_types[i] == "full_attention" else "mamba"


# the mixer of each block, as layer_types lists it (read by the table's kinds field)
MIXERS = LayerKinds((("attention", L_att), ("mamba", L_ssm)), _mixer)

_expert = stacked_expert(d_fe, per_expert=True)
_moe = routed_experts(_expert, match="block_sparse_moe")
_shared = group(
    "shared_mlp",
    leaf("input", 2 * d_e * d_fs, match="input_linear", kind="feed-forward",
         note="gate and up fused, d_e → 2·d_fs, no bias", d_in=d_e, d_out=2 * d_fs),
    leaf("output", d_fs * d_e, match="output_linear", kind="feed-forward", note="no bias",
         d_in=d_fs, d_out=d_e),
    match="shared_mlp",
    kind="feed-forward",
)

_stack = MIXERS.stack(
    "blocks",
    common=(rms_norm("mixer_norm", match="input_layernorm"),
            rms_norm("ffn_norm", match="post_attention_layernorm"), _shared),
    per_kind={"attention": (attention(qkv_bias=b_att, o_bias=b_att),),
              "mamba": (mamba2_mixer("mamba", match="mamba"),)},
)
FORMULA = group(
    "granitemoehybrid",
    group("embeddings", embedding("token", v, match="model/embed_tokens"),
          zero("positions", "rotary (position_embedding_type rope) or none: no weights either "
                            "way", kind="position")),
    group("blocks", *_stack.children, repeat(_moe, L * moe), match=r"model/layers/\d+",
          note="L blocks: attention in L_att, Mamba-2 in the other L_ssm; a shared MLP in "
               "every one, and E routed experts beside it when moe = 1"),
    rms_norm("final_norm", match="model/norm"),
    lm_head(TIED_TO_TOKENS),
)

_LEGACY = {"mamba": "linear_attention", "attention": "full_attention"}


def _normalize(config: Mapping) -> Mapping:
    """Legacy layer names (mamba, attention) as transformers remaps them; no experts
    (num_local_experts 0) read as moe = 0, the experts' keys then unset."""
    c = dict(config)
    if isinstance(c.get("layer_types"), list):
        c["layer_types"] = [_LEGACY.get(t, t) if isinstance(t, str) else t
                            for t in c["layer_types"]]
    if c.get("num_local_experts") == 0:
        c["num_local_experts"] = c["num_experts_per_tok"] = None
    return c


MAPPING = family_table(
    "granitemoehybrid", hf="GraniteMoeHybridForCausalLM",
    fields=(
        *HF_DECODER_FIELDS,
        HF_HEAD_DIM_IMPLIED,  # getattr in the attention (issue 32): refused unless d_e/M, written
        # only where it differs (validate_rope checks a head_dim given)
        HF_EXPERT_FFN_AS_FFN,
        Field("d_fs", hf="shared_intermediate_size"),
        # absent: GraniteMoeHybridConfig's 8 experts (routed); 0 or null: dense
        Field("moe", hf="num_local_experts", hf_presence=True, hf_default=1),
        *HF_LOCAL_ROUTING,
        MAMBA_EXPAND,
        MAMBA_HEADS,
        MAMBA_GROUPS,
        MAMBA_STATE,
        MAMBA_CONV,
        MAMBA_CONV_BIAS,
        MAMBA_PROJ_BIAS,
        HF_ATTENTION_BIAS,
        HF_TIED_NO,
        Field("L_att", hf="layer_types", kinds=("full_attention", "linear_attention"),
              hf_default=0),
    ),
    restrictions=(
        Sets("num_local_experts", lambda hp: hp["E"] if hp["moe"] else 0,
            why="GraniteMoeHybridConfig takes a dense model as num_local_experts = 0"),
        Sets("mamba_d_head", lambda hp: hp["x_in"] * hp["d_e"] // hp["H_ssm"],
            why="transformers takes the Mamba head width x_in·d_e/H_ssm as mamba_d_head"),
    ),
    hf_normalize=_normalize,
    # mamba_d_head: x_in·d_e / H_ssm, as GraniteMoeHybridConfig validates it (not read)
    free=RMS_CAUSAL_LM_FREE | {
        "mamba_d_head", "position_embedding_type", "initializer_range", "use_cache", "pad_token_id", "bos_token_id",
        "eos_token_id", "embedding_multiplier", "logits_scaling", "residual_multiplier", "attention_multiplier",
        "output_router_logits", "router_aux_loss_coef", "mamba_chunk_size", "time_step_limit", "normalization_function",
        "init_method", "torch_dtype", "dtype", "transformers_version", "model_name",
    },
)

register(hf_causal_lm(
    "granitemoehybrid",
    formula=FORMULA,
    required=(v, d_e, M, M_kv, L, L_att, d_fs, H_ssm),
    optional={moe: 1, E: 8, k_act: 2, d_fe: 1024, x_in: 2, G_ssm: 1, d_state: 256, K_conv: 4,
              b_conv: 1, b_proj: 0, b_att: 0, tied: 1},
    restrictions=(
        split_heads("GraniteMoeHybridConfig"),
        Fixed(d_ssm, x_in * d_e / H_ssm, why="the Mamba inner width x_in·d_e is split into H_ssm heads"),
        *Fixed.each(MIXERS.fixed(),
            why="the Mamba blocks are those layer_types does not mark as attention (L_ssm = L − L_att)"),
        HEADS_SPLIT_WIDTH,
        GQA,
        Holds(Divisible(x_in * d_e, H_ssm), why="the Mamba inner width x_in·d_e is split into whole heads"),
        ROUTED_TO_AT_MOST_ALL,
        *Holds.each(MIXERS.constraints()),
    ),
    mapping=MAPPING,
    transformers=Transformers(weights=own_weights(FORMULA), cost_config=ssd_chunk("mamba_chunk_size", 256),
                              restrictions=(
        Holds(Divisible(x_in, H_ssm), binds="proof",
            why="prove samples x_in = H_ssm·x_in' (x_in·d_e divisible by H_ssm): there every H_ssm and M stay "
                "free, and a polynomial identity there holds at every valid set; met through d_e instead "
                "(d_e = M_kv·M'·H_ssm·d_e'), each width would be a product of four random factors whose builds "
                "overflow torch's byte count, and the Schwartz-Zippel bound would not be close"),
    )),
))
