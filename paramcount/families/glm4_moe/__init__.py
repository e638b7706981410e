"""GLM-4.5 and GLM-4.5-Air (Zhipu AI / Z.ai 2025, "GLM-4.5: Agentic, Reasoning, and Coding (ARC)
Foundation Models"), as transformers builds them: Glm4MoeForCausalLM. KerasHub has no GLM-4.5,
so transformers is the reference.

DeepSeek-V3's layout (:mod:`paramcount.families.deepseek`) with grouped-query attention in
place of latent attention: M query and M_kv key/value heads of width d_k (d_k·M need not be d_e),
biases on the query, key and value projections (``attention_bias``, b_att) but never on the
output, and optionally per-head RMS norms of queries and keys (``use_qk_norm``, qk_norm). The first
L_dense blocks keep a dense SwiGLU of width d_f, the others are DeepSeekMoE: a router with its
score-correction bias (a non-trainable buffer), E routed experts of width d_fe (k per token) and
E_s shared ones. The checkpoints also store n_mtp multi-token-prediction layers
(``num_nextn_predict_layers``, as ``model.layers.L``), DeepSeek-V3's module around one sparse
block; Glm4MoeForCausalLM does not build them (it ignores ``model.layers.92`` and ``.46`` on
load), so transformers' count is the formula's less them (a named delta). GLM-4.5's and
GLM-4.5-Air's module store their own copies of the token table and head (mtp_tab = 1; llama.cpp's
``blk.N.nextn.embed_tokens``, ``shared_head_head``); GLM-4.6's ``mtp.safetensors`` does not
(mtp_tab = 0; llama.cpp PR 16359 made those two tensors optional for it).
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.restrictions import Holds
from paramcount.core.symbols import E
from paramcount.core.symbols import E_s
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import b_att
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_fe
from paramcount.core.symbols import d_k
from paramcount.core.symbols import mtp_tab
from paramcount.core.symbols import n_mtp
from paramcount.core.symbols import qk_norm
from paramcount.core.symbols import tied
from paramcount.core.symbols import v
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._defaults import family_table
from paramcount.families._lineages import DENSE_THEN_SPARSE
from paramcount.families._lineages import EVEN_HEAD_DIM
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HF_ATTENTION_BIAS
from paramcount.families._lineages import HF_DENSE_FIRST_MOE_FIELDS
from paramcount.families._lineages import HF_GQA_FIELDS
from paramcount.families._lineages import HF_HEAD_DIM_OR_SPLIT
from paramcount.families._lineages import HF_QK_NORM
from paramcount.families._lineages import HF_TIED_NO
from paramcount.families._lineages import ROUTED_TO_AT_MOST_ALL
from paramcount.families._lineages import dense_first_at_most_all
from paramcount.families.deepseek import FREE as DEEPSEEK_FREE
from paramcount.model.components.basic import dense
from paramcount.model.components.hf_decoder import lm_head
from paramcount.model.components.latent import deepseek_moe
from paramcount.model.components.latent import mtp_module
from paramcount.model.components.latent import swiglu_hf
from paramcount.model.components.llama_like import embeddings
from paramcount.model.components.modern import k_act
from paramcount.model.components.modern import rms_norm
from paramcount.model.components.stacks import DENSE_FIRST
from paramcount.model.components.stacks import L_dense
from paramcount.model.frameworks import Delta
from paramcount.model.frameworks import Transformers
from paramcount.model.frameworks import own_weights
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("glm4_moe",)  # the ids this folder registers


_attention = group(
    "attention",
    dense("query", d_e, M * d_k, bias=b_att, match="q_proj"),
    dense("key", d_e, M_kv * d_k, bias=b_att, match="k_proj"),
    dense("value", d_e, M_kv * d_k, bias=b_att, match="v_proj"),
    dense("output", M * d_k, d_e, bias=0, match="o_proj"),
    rms_norm("query_norm", qk_norm * d_k, match="q_norm"),
    rms_norm("key_norm", qk_norm * d_k, match="k_norm"),
    match="self_attn",
    kind="attention",
)

_COMMON = (rms_norm("attention_norm", match="input_layernorm"), _attention,
           rms_norm("ffn_norm", match="post_attention_layernorm"))

FORMULA = group(
    "glm4_moe",
    embeddings("model/embed_tokens"),
    DENSE_FIRST.stack(
        "blocks",
        common=_COMMON,
        per_kind={"dense": (swiglu_hf("dense_ffn", d_f,
                                      match=r"mlp(?=/(?:gate|up|down)_proj)"),),
                  "moe": (deepseek_moe(score_bias=True),)},
        match=r"model/layers/\d+",
        note="L blocks: grouped-query attention in each, a dense SwiGLU in the first L_dense, "
             "routed + shared experts in the other L_moe",
    ),
    rms_norm("final_norm", match="model/norm"),
    lm_head(),
    mtp_module((*_COMMON, deepseek_moe(score_bias=True)), times=n_mtp, tables=mtp_tab),
)

MAPPING = family_table(
    "glm4_moe", hf="Glm4MoeForCausalLM",
    fields=(
        *HF_GQA_FIELDS,
        # absent: d_e/M, as Glm4MoeAttention takes it
        HF_HEAD_DIM_OR_SPLIT,
        *HF_DENSE_FIRST_MOE_FIELDS,
        HF_ATTENTION_BIAS,
        HF_QK_NORM,
        HF_TIED_NO,
        # Glm4MoeConfig's num_mtp_layers (attribute_map: num_nextn_predict_layers), default 1
        Field("n_mtp", hf="num_nextn_predict_layers", hf_default=1),
    ),
    # partial_rotary_factor: the rotary share of d_k (changes no weight)
    free=DEEPSEEK_FREE | {"partial_rotary_factor"},
    hf_normalize=dense_first_at_most_all,
)

_MTP_REASON = ("transformers (Glm4MoeForCausalLM) does not build the multi-token-prediction "
               "layers (num_nextn_predict_layers): the checkpoint stores them as model.layers.L "
               "(92 in GLM-4.5, 46 in GLM-4.5-Air), which loading ignores; generate(use_mtp=True) "
               "loads them into a separate MtpModel that shares the main model's table and head")

register(hf_causal_lm(
    "glm4_moe",
    formula=FORMULA,
    required=(v, d_e, M, M_kv, d_k, d_f, L, E, E_s, d_fe),
    optional={k_act: 8, tied: 0, L_dense: 1, b_att: 1, qk_norm: 0, n_mtp: 0, mtp_tab: 1},
    restrictions=(
        *DENSE_THEN_SPARSE,
        EVEN_HEAD_DIM,
        GQA,
        ROUTED_TO_AT_MOST_ALL,
        *Holds.each(DENSE_FIRST.constraints()),
    ),
    mapping=MAPPING,
    transformers=Transformers(
        weights={p: m for p, m in own_weights(FORMULA).items() if p.split(".")[0] != "mtp"},
        deltas=(Delta("mtp", None, _MTP_REASON),),
    ),
))
