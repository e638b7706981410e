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

from paramcount.core.formula import group
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import G_ssm
from paramcount.core.symbols import H_ssm
from paramcount.core.symbols import K_conv
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import b_att
from paramcount.core.symbols import b_conv
from paramcount.core.symbols import b_ffn
from paramcount.core.symbols import b_out
from paramcount.core.symbols import b_proj
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import d_ssm
from paramcount.core.symbols import d_state
from paramcount.core.symbols import ssm_norm
from paramcount.core.symbols import tied
from paramcount.core.symbols import v
from paramcount.families._decoders import RMS_CAUSAL_LM_FREE
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._defaults import family_table
from paramcount.families._lineages import EVEN_HEAD_DIM
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HF_ATTENTION_BIAS
from paramcount.families._lineages import HF_FFN
from paramcount.families._lineages import HF_HEAD_DIM_DECODER_FIELDS
from paramcount.families._lineages import HF_MLP_BIAS
from paramcount.families._lineages import HF_TIED_NO
from paramcount.families._lineages import MAMBA_CONV
from paramcount.families._lineages import MAMBA_CONV_BIAS
from paramcount.families._lineages import MAMBA_GROUPS
from paramcount.families._lineages import MAMBA_HEADS
from paramcount.families._lineages import MAMBA_PROJ_BIAS
from paramcount.families._lineages import MAMBA_STATE
from paramcount.model.components.hf_decoder import TIED_TO_TOKENS
from paramcount.model.components.hf_decoder import attention
from paramcount.model.components.hf_decoder import lm_head
from paramcount.model.components.llama_like import embeddings
from paramcount.model.components.modern import gated_feed_forward
from paramcount.model.components.modern import rms_norm
from paramcount.model.components.ssm import mamba2_mixer
from paramcount.model.components.ssm import ssd_chunk
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("falcon_h1",)  # the ids this folder registers


FORMULA = group(
    "falcon_h1",
    embeddings("model/embed_tokens"),
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
    lm_head(TIED_TO_TOKENS),
)


def _normalize(config: Mapping) -> Mapping:
    """mamba_d_ssm null is mamba_expand·hidden_size, as FalconH1Config takes it."""
    c = dict(config)
    if "mamba_d_ssm" in c and c["mamba_d_ssm"] is None \
            and isinstance(c.get("hidden_size"), int) and isinstance(c.get("mamba_expand"), int):
        c["mamba_d_ssm"] = c["mamba_expand"] * c["hidden_size"]
    return c


MAPPING = family_table(
    "falcon_h1", hf="FalconH1ForCausalLM",
    fields=(
        *HF_HEAD_DIM_DECODER_FIELDS,
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
    restrictions=(
        Sets("mamba_d_head", lambda hp: hp["d_ssm"],
            why="transformers takes the Mamba head width d_ssm as mamba_d_head"),
    ),
    hf_normalize=_normalize,
    # mamba_d_head: d_ssm, as FalconH1Config validates it against mamba_d_ssm / mamba_n_heads;
    # mamba_expand: used only when mamba_d_ssm is null; the multipliers are scalars
    free=RMS_CAUSAL_LM_FREE | {
        "mamba_d_head", "mamba_expand", "mamba_chunk_size", "mamba_norm_before_gate", "mamba_use_mlp",
        "attn_layer_indices", "time_step_limit", "initializer_range", "use_cache", "num_logits_to_keep", "pad_token_id",
        "bos_token_id", "eos_token_id", "lm_head_multiplier", "embedding_multiplier", "mlp_multipliers",
        "key_multiplier", "attention_out_multiplier", "attention_in_multiplier", "ssm_multipliers", "ssm_in_multiplier",
        "ssm_out_multiplier", "torch_dtype", "transformers_version",
    },
)

register(hf_causal_lm(
    "falcon_h1",
    formula=FORMULA,
    required=(v, d_e, M, M_kv, d_k, d_f, L, H_ssm, d_ssm),
    optional={G_ssm: 1, d_state: 256, K_conv: 4, b_conv: 1, b_proj: 0, b_out: 0, ssm_norm: 0,
              b_att: 0, b_ffn: 0, tied: 0},
    restrictions=(
        EVEN_HEAD_DIM,
        GQA,
    ),
    mapping=MAPPING,
    cost_config=ssd_chunk("mamba_chunk_size", 256),
))
