"""Falcon-H1 (TII 2025, "Falcon-H1: A Family of Hybrid-Head Language Models"), as transformers
builds it: FalconH1ForCausalLM. KerasHub has no Falcon-H1, so transformers is the reference.

Not a stack of two kinds of block but one kind with two heads side by side: each of the L
blocks runs grouped-query attention (M query and M_kv key/value heads of width d_k, biases on
all four projections when ``attention_bias``) and a Mamba-2 mixer
(:func:`paramcount.model.components.ssm.mamba2_mixer`: H_ssm heads of width d_ssm, its inner width
``mamba_d_ssm`` = H_ssm·d_ssm, the gated RMS norm only when ``mamba_rms_norm``, out_proj's bias
set by ``projectors_bias``) in parallel on the same normed input, then a SwiGLU MLP of width d_f.
The µP multipliers are scalars from the config, and the Mamba mixer's ``mup_vector`` a
non-persistent buffer: no parameters. Rotary positions; token embedding, final RMS norm and an
LM head (tied or not).
"""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.core.formula import group, leaf
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Holds, Sets
from paramcount.core.symbols import (
    G_ssm,
    H_ssm,
    K_conv,
    L,
    M,
    M_kv,
    b_att,
    b_conv,
    b_ffn,
    b_out,
    b_proj,
    d_e,
    d_f,
    d_k,
    d_ssm,
    d_state,
    ssm_norm,
    tied,
    v,
)
from paramcount.families._lineages import (
    GQA,
    HF_ATTENTION_BIAS,
    HF_FFN,
    HF_HEAD_DIM_OR_SPLIT,
    HF_HEADS,
    HF_KV_HEADS_OR_M,
    HF_LAYERS,
    HF_MLP_BIAS,
    HF_TIED_NO,
    HF_VOCAB,
    HF_WIDTH,
    MAMBA_CONV,
    MAMBA_CONV_BIAS,
    MAMBA_GROUPS,
    MAMBA_HEADS,
    MAMBA_PROJ_BIAS,
    MAMBA_STATE,
)
from paramcount.model.components.basic import embedding
from paramcount.model.components.hf_decoder import attention
from paramcount.model.components.modern import gated_feed_forward, rms_norm, rotary_positions
from paramcount.model.components.ssm import mamba2_mixer
from paramcount.model.frameworks import Transformers, own_weights
from paramcount.model.mapping import Field, Table
from paramcount.model.registry import Architecture, register
from paramcount.model.weights import Named

IDS = ("falcon_h1",)  # the ids this folder registers


FORMULA = group(
    "falcon_h1",
    group("embeddings", embedding("token", v, match="model/embed_tokens"), rotary_positions()),
    group(
        "blocks",
        rms_norm("mixer_norm", match="input_layernorm"),
        attention(qkv_bias=b_att, o_bias=b_att),
        mamba2_mixer("mamba", match="mamba", inner=H_ssm * d_ssm, norm=ssm_norm,
                     out_bias=b_out),
        rms_norm("ffn_norm", match="pre_ff_layernorm"),
        gated_feed_forward("ffn", inner=d_f, bias=b_ffn, match="feed_forward",
                           names=("gate_proj", "up_proj", "down_proj")),
        times=L,
        match=r"model/layers/\d+",
        note="L hybrid blocks: attention and a Mamba-2 mixer in parallel, then a SwiGLU MLP",
    ),
    rms_norm("final_norm", match="model/final_layernorm"),
    leaf("head", (1 - tied) * d_e * v, match="lm_head", kind="head",
         note="output projection (none when tied to the token embedding)"),
)


def _normalize(config: Mapping) -> Mapping:
    """mamba_d_ssm null is mamba_expand·hidden_size, as FalconH1Config takes it."""
    c = dict(config)
    if "mamba_d_ssm" in c and c["mamba_d_ssm"] is None \
            and isinstance(c.get("hidden_size"), int) and isinstance(c.get("mamba_expand"), int):
        c["mamba_d_ssm"] = c["mamba_expand"] * c["hidden_size"]
    return c


MAPPING = Table(
    fields=(
        HF_VOCAB,
        HF_LAYERS,
        HF_HEADS,
        HF_KV_HEADS_OR_M,
        HF_HEAD_DIM_OR_SPLIT,
        HF_WIDTH,
        HF_FFN,
        MAMBA_HEADS,
        # mamba_d_ssm is the inner width H_ssm·d_ssm (FalconH1Config's default 1024 when absent)
        Field("d_ssm", hf="mamba_d_ssm", hf_per="H_ssm", hf_default=1024 / H_ssm),
        MAMBA_GROUPS,
        MAMBA_STATE,
        MAMBA_CONV,
        MAMBA_CONV_BIAS,
        MAMBA_PROJ_BIAS,
        Field("b_out", hf="projectors_bias", flag=True, hf_default=0),
        Field("ssm_norm", hf="mamba_rms_norm", flag=True, hf_default=0),
        HF_ATTENTION_BIAS,
        HF_MLP_BIAS,
        HF_TIED_NO,
    ),
    model_type="falcon_h1",
    hf_classes={"FalconH1ForCausalLM": "falcon_h1"},
    restrictions=(
        Sets("mamba_d_head", lambda hp: hp["d_ssm"],
            why="transformers takes the Mamba head width d_ssm as mamba_d_head"),
    ),
    hf_normalize=_normalize,
    # mamba_d_head: d_ssm, as FalconH1Config validates it against mamba_d_ssm / mamba_n_heads;
    # mamba_expand: used only when mamba_d_ssm is null; the multipliers are scalars
    free=frozenset({
        "mamba_d_head", "mamba_expand", "mamba_chunk_size", "mamba_norm_before_gate",
        "mamba_use_mlp", "attn_layer_indices", "time_step_limit", "hidden_act",
        "initializer_range", "rms_norm_eps", "use_cache", "num_logits_to_keep", "pad_token_id",
        "bos_token_id", "eos_token_id", "max_position_embeddings", "attention_dropout",
        "rope_theta", "rope_scaling", "rope_parameters", "lm_head_multiplier",
        "embedding_multiplier", "mlp_multipliers", "key_multiplier",
        "attention_out_multiplier", "attention_in_multiplier", "ssm_multipliers",
        "ssm_in_multiplier", "ssm_out_multiplier", "torch_dtype", "transformers_version",
    }),
)

register(Architecture(
    id="falcon_h1",
    title="Falcon-H1 (transformers FalconH1ForCausalLM): attention and Mamba-2 heads in "
          "parallel in every block",
    source="TII 2025 (Falcon-H1: A Family of Hybrid-Head Language Models), section 2; "
           "transformers/models/falcon_h1/modeling_falcon_h1.py",
    formula=FORMULA,
    required=(v, d_e, M, M_kv, d_k, d_f, L, H_ssm, d_ssm),
    optional={G_ssm: 1, d_state: 256, K_conv: 4, b_conv: 1, b_proj: 0, b_out: 0, ssm_norm: 0,
              b_att: 0, b_ffn: 0, tied: 0},
    restrictions=(
        Holds(Divisible(d_k, 2), why="transformers validates an even rotary width (only it builds Falcon-H1)"),
        GQA,
    ),
    reference=Named("reference_models.hf:weights", ("falcon_h1",)),
    counting="trainable parameters of the causal LM: token embedding, L blocks (attention and "
             "a Mamba-2 mixer side by side, a SwiGLU MLP), final RMS norm, the LM head unless "
             "tied; the µP multipliers are scalars, not parameters",
    presets="falcon_h1",
    family="transformers",
    mapping=MAPPING,
    transformers=Transformers(weights=own_weights(FORMULA)),
    frameworks=("transformers",),
    examples={
        "tiny": dict(v=97, d_e=32, M=4, M_kv=2, d_k=8, d_f=48, L=2, H_ssm=4, d_ssm=6,
                     G_ssm=2, d_state=4, ssm_norm=1),
        "tiny_odd_biases_tied": dict(v=31, d_e=21, M=3, M_kv=1, d_k=6, d_f=13, L=3, H_ssm=3,
                                     d_ssm=7, d_state=5, K_conv=3, b_conv=0, b_proj=1,
                                     b_out=1, b_att=1, b_ffn=1, tied=1),
    },
))
