"""ERNIE 4.5 (Baidu 2025, "ERNIE 4.5 Technical Report"), dense and mixture-of-experts, as
transformers builds them: Ernie4_5ForCausalLM and Ernie4_5_MoeForCausalLM. KerasHub has no ERNIE,
so transformers is the reference.

Both are Llama's pre-norm block (RMS norms, grouped-query attention of M query and M_kv
key/value heads of width d_k = ``head_dim``, which need not be d_e/M, SwiGLU of width d_f) and a
token table tied to the LM head in the small models. ``use_bias`` would put biases on every
projection (and the MoE model's LM head); no released model sets it, and the formula refuses it.

The MoE model keeps a dense SwiGLU in its first L_dense blocks (``moe_layer_start_index``) and a
mixture in the rest: E routed SwiGLU experts of width d_fe (k per token) with a bias-free router
whose per-expert score-correction bias (``moe_statics.e_score_correction_bias``, a parameter
transformers freezes) is not trained, beside E_sh shared experts held as one SwiGLU of width
E_sh·d_fe (none in the 300B model). ERNIE 4.5's vision-language models are not these classes.
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import E
from paramcount.core.symbols import E_sh
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_fe
from paramcount.core.symbols import d_k
from paramcount.core.symbols import tied
from paramcount.core.symbols import v
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._lineages import DENSE_THEN_SPARSE
from paramcount.families._lineages import EVEN_HEAD_DIM
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HF_EXPERT_FFN
from paramcount.families._lineages import HF_FFN
from paramcount.families._lineages import HF_HEAD_DIM_OR_128
from paramcount.families._lineages import HF_HEAD_DIM_OR_SPLIT
from paramcount.families._lineages import HF_HEADS
from paramcount.families._lineages import HF_KV_HEADS_OR_M
from paramcount.families._lineages import HF_LAYERS
from paramcount.families._lineages import HF_TIED_YES
from paramcount.families._lineages import HF_VOCAB
from paramcount.families._lineages import HF_WIDTH
from paramcount.families._lineages import ROUTED_TO_AT_MOST_ALL
from paramcount.model.components.hf_decoder import TIED_TO_TOKENS
from paramcount.model.components.hf_decoder import attention
from paramcount.model.components.hf_decoder import causal_lm
from paramcount.model.components.hf_decoder import lm_head
from paramcount.model.components.hf_decoder import stacked_expert
from paramcount.model.components.latent import swiglu_hf
from paramcount.model.components.llama_like import embeddings
from paramcount.model.components.modern import k_act
from paramcount.model.components.modern import mixture_of_experts
from paramcount.model.components.modern import rms_norm
from paramcount.model.components.stacks import DENSE_FIRST
from paramcount.model.components.stacks import L_dense
from paramcount.model.components.stacks import L_moe
from paramcount.model.components.stacks import LayerKinds
from paramcount.model.mapping import Field
from paramcount.model.mapping import Require
from paramcount.model.mapping import Table
from paramcount.model.registry import register

IDS = ("ernie4_5", "ernie4_5_moe")  # the ids this folder registers


_NORM_1 = rms_norm("attention_norm", match="input_layernorm")
_ATTENTION = attention(key_dim=d_k)
_NORM_2 = rms_norm("ffn_norm", match="post_attention_layernorm")
_FINAL_NORM = rms_norm("final_norm", match="model/norm")

DENSE = causal_lm(
    "ernie4_5",
    block=(_NORM_1, _ATTENTION, _NORM_2, swiglu_hf("ffn", d_f, match="mlp")),
    final_norm=_FINAL_NORM,
    note="pre-norm blocks: attention, SwiGLU",
)

_ROUTER = group(
    "router",
    leaf("weight", E * d_e, match="weight", kind="router", note="expert affinities d_e → E, no bias",
         d_in=d_e, d_out=E),
    leaf("score_bias", E, match="moe_statics/e_score_correction_bias", trainable=False,
         kind="router", note="per-expert score-correction bias for top-k selection (a parameter "
                             "transformers freezes: requires_grad False)", macs=0),
    match="gate",
    kind="router",
)
MOE = group(
    "ernie4_5_moe",
    embeddings("model/embed_tokens"),
    DENSE_FIRST.stack(
        "blocks",
        common=(_NORM_1, _ATTENTION, _NORM_2),
        per_kind={"dense": (swiglu_hf("dense_ffn", d_f, match=r"mlp(?=/(?:gate|up|down)_proj)"),),
                  "moe": (mixture_of_experts(
                      "moe", experts=E, top_k=k_act, expert=stacked_expert(d_fe), router=_ROUTER,
                      shared=swiglu_hf("shared", E_sh * d_fe, match="shared_experts"),
                      match="mlp"),)},
        match=r"model/layers/\d+",
        note="L blocks: attention in each, a dense SwiGLU in the first L_dense, routed + shared "
             "experts in the other L_moe",
    ),
    _FINAL_NORM,
    lm_head(TIED_TO_TOKENS),
)


def _moe_layer(i: int, *, moe_layer_start_index: int = 1, moe_layer_end_index: int = -1,
               moe_layer_interval: int = 1) -> str:
    """ERNIE 4.5's rule (HF ``Ernie4_5_MoeDecoderLayer``): block i is sparse when i + 1 is a
    multiple of the interval and start ≤ i ≤ end (-1: the last block)."""
    inside = moe_layer_start_index <= i and (moe_layer_end_index < 0 or i <= moe_layer_end_index)
    return "moe" if inside and (i + 1) % moe_layer_interval == 0 else "dense"


# The same two counts as DENSE_FIRST (L_dense set, L_moe the rest), read by ERNIE's rule
ERNIE_MOE_LAYERS = LayerKinds((("dense", L_dense), ("moe", L_moe)), _moe_layer,
                              any_int=frozenset({"moe_layer_start_index", "moe_layer_end_index"}))

_NO_BIAS = Require("use_bias", (False,), "no released ERNIE 4.5 model has projection biases; "
                                         "the formula has none")
_FREE = frozenset({
    "hidden_act", "max_position_embeddings", "rms_norm_eps", "rope_theta", "rope_scaling",
    "rope_parameters", "attention_dropout", "use_flash_attention", "use_rmsnorm", "weight_share_add_bias",
    "compression_ratio",
    # the multi-token-prediction layer some checkpoints describe: not built by transformers
    "num_nextn_predict_layers", "multi_token_pred_lambda",
})


def _fields(*more: Field) -> tuple[Field, ...]:
    return (
        HF_VOCAB,
        HF_LAYERS,
        HF_HEADS,
        HF_KV_HEADS_OR_M,
        HF_WIDTH,
        HF_FFN,
        HF_TIED_YES,
        *more,
    )


# rotary pairs: what a forward pass needs (a note), grouped-query attention: what the formula needs
_ROWS = (EVEN_HEAD_DIM, GQA)

register(hf_causal_lm(
    "ernie4_5",
    formula=DENSE,
    required=(v, d_e, M, M_kv, d_k, d_f, L),
    optional={tied: 1},
    restrictions=_ROWS,
    mapping=Table(
        # head_dim absent: Ernie4_5Config's default, 128 (null would be d_e/M)
        fields=_fields(HF_HEAD_DIM_OR_128),
        model_type="ernie4_5", hf_classes={"Ernie4_5ForCausalLM": "ernie4_5"},
        restrictions=(
            Sets("use_bias", False, why="no released ERNIE 4.5 model has projection biases; the formula has none"),
            *Requires.each((_NO_BIAS,)),
        ), free=_FREE),
))


def _start(hp) -> int:
    return hp["L_dense"]


register(hf_causal_lm(
    "ernie4_5_moe",
    formula=MOE,
    required=(v, d_e, M, M_kv, d_k, d_f, L, E, d_fe),
    optional={k_act: 8, E_sh: 0, L_dense: 1, tied: 1},
    restrictions=(
        *DENSE_THEN_SPARSE,
        *_ROWS,
        ROUTED_TO_AT_MOST_ALL,
        *Holds.each(DENSE_FIRST.constraints()),
    ),
    mapping=Table(
        fields=_fields(
            # absent: d_e/M, as Ernie4_5_MoeAttention takes it
            HF_HEAD_DIM_OR_SPLIT,
            HF_EXPERT_FFN,
            Field("E", hf="moe_num_experts"),
            Field("k", hf="moe_k"),
            Field("E_sh", hf="moe_num_shared_experts", hf_default=0),
            Field("L_dense", stack=ERNIE_MOE_LAYERS, options={
                "moe_layer_start_index": "moe_layer_start_index",
                "moe_layer_end_index": "moe_layer_end_index",
                "moe_layer_interval": "moe_layer_interval"}),
        ),
        model_type="ernie4_5_moe", hf_classes={"Ernie4_5_MoeForCausalLM": "ernie4_5_moe"},
        restrictions=(
            Sets("use_bias", False, why="no released ERNIE 4.5 model has projection biases; the formula has none"),
            Sets("moe_layer_start_index", _start, why="the mixture starts after the first L_dense dense blocks"),
            Sets("moe_layer_end_index", -1, why="the mixture runs to the last block (-1: to the end)"),
            Sets("moe_layer_interval", 1, why="every block after the first L_dense is sparse"),
            *Requires.each((_NO_BIAS,)),
        ),
        free=_FREE | {
            "moe_norm_min", "output_router_logits", "router_aux_loss_coef", "moe_gate",
            "moe_use_aux_free", "moe_capacity"}),
))
