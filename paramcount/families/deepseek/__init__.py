"""DeepSeek-V2 and DeepSeek-V3 (DeepSeek-AI 2024, "DeepSeek-V2: A Strong, Economical, and
Efficient Mixture-of-Experts Language Model"; "DeepSeek-V3 Technical Report"), as transformers
builds them: DeepseekV2ForCausalLM and DeepseekV3ForCausalLM. KerasHub has no DeepSeek model, so
transformers is the reference (as for Falcon-7B/40B).

L pre-norm blocks of multi-head latent attention (:mod:`paramcount.model.components.latent`) and a
feed-forward: a dense SwiGLU of width d_f in the first L_dense blocks (``first_k_dense_replace``),
DeepSeekMoE in the other L_moe = L − L_dense: E routed experts of width d_fe (k per token) and
E_s shared experts every token uses. Token embedding, final RMS norm, untied LM head.

V3 adds to V2's layer two things the count sees: the router's score-correction bias (E per
sparse block, a buffer: non-trainable) and the multi-token-prediction module (n_mtp of them) its
checkpoint stores beside the model, which transformers does not build. Kimi K2 (Moonshot AI 2025)
and DeepSeek-V3.1 are DeepseekV3ForCausalLM configs.
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.hparams import Divisible
from paramcount.core.hparams import Relation
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import E
from paramcount.core.symbols import E_s
from paramcount.core.symbols import H_idx
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_fe
from paramcount.core.symbols import d_idx
from paramcount.core.symbols import d_nope
from paramcount.core.symbols import d_rope
from paramcount.core.symbols import d_v
from paramcount.core.symbols import n_mtp
from paramcount.core.symbols import q_lora
from paramcount.core.symbols import r_kv
from paramcount.core.symbols import r_q
from paramcount.core.symbols import tied
from paramcount.core.symbols import v
from paramcount.families._decoders import RMS_CAUSAL_LM_FREE
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._defaults import family_table
from paramcount.families._lineages import HF_DENSE_FIRST_MOE_FIELDS
from paramcount.families._lineages import HF_HEADS
from paramcount.families._lineages import HF_LAYERS
from paramcount.families._lineages import HF_TIED_NO
from paramcount.families._lineages import HF_VOCAB
from paramcount.families._lineages import HF_WIDTH
from paramcount.families._lineages import ROUTED_TO_AT_MOST_ALL
from paramcount.families._lineages import dense_first_at_most_all
from paramcount.model.components.basic import embedding
from paramcount.model.components.hf_decoder import lm_head
from paramcount.model.components.latent import deepseek_moe
from paramcount.model.components.latent import dsa_indexer
from paramcount.model.components.latent import latent_attention
from paramcount.model.components.latent import mtp_module
from paramcount.model.components.latent import swiglu_hf
from paramcount.model.components.modern import k_act
from paramcount.model.components.modern import rms_norm
from paramcount.model.components.modern import rotary_positions
from paramcount.model.components.stacks import DENSE_FIRST
from paramcount.model.components.stacks import L_dense
from paramcount.model.frameworks import Delta
from paramcount.model.frameworks import Transformers
from paramcount.model.frameworks import own_weights
from paramcount.model.mapping import Field
from paramcount.model.mapping import Require
from paramcount.model.mapping import Table
from paramcount.model.registry import register

IDS = ("deepseek_v2", "deepseek_v3", "deepseek_v32")  # the ids this folder registers


BLOCK = r"model/layers/\d+"


def _block_parts(*, v32: bool = False):
    return (rms_norm("attention_norm", match="input_layernorm"),
            latent_attention(indexer=dsa_indexer() if v32 else None),
            rms_norm("ffn_norm", match="post_attention_layernorm"))


def _tree(name: str, *, v3: bool, v32: bool = False):
    common = _block_parts(v32=v32)
    moe = deepseek_moe(score_bias=v3)
    blocks = DENSE_FIRST.stack(
        "blocks",
        common=common,
        per_kind={"dense": (swiglu_hf("dense_ffn", d_f, match=r"mlp(?=/(?:gate|up|down)_proj)"),),
                  "moe": (moe,)},
        match=BLOCK,
        note="L blocks: latent attention in each, a dense SwiGLU in the first L_dense, "
             "routed + shared experts in the other L_moe",
    )
    parts = [
        group("embeddings", embedding("token", v, match="model/embed_tokens"),
              rotary_positions()),
        blocks,
        rms_norm("final_norm", match="model/norm"),
        lm_head(),
    ]
    if v3:
        parts.append(mtp_module((*common, moe), times=n_mtp))
    return group(name, *parts)


FREE = RMS_CAUSAL_LM_FREE | {
    "rope_interleave", "num_key_value_heads", "head_dim", "n_group", "topk_group", "topk_method",
    "routed_scaling_factor", "norm_topk_prob", "scoring_func", "aux_loss_alpha", "seq_aux", "ep_size",
    "output_router_logits", "router_aux_loss_coef", "pretraining_tp", "qk_head_dim",
}


def _q_lora_rank(hp):
    """q_lora_rank as transformers takes it: r_q, or null for a plain query projection."""
    return hp["r_q"] if hp["q_lora"] else None


def _fields(*, v3: bool, v32: bool = False):
    if v32:  # the query is always low-rank (q_lora fixed to 1); the indexer's widths
        return (
            *(f for f in _fields(v3=True) if f.symbol != "q_lora"),
            Field("H_idx", hf="index_n_heads"),
            Field("d_idx", hf="index_head_dim"),
            # a per-block list of "dense" / "sparse" (its default: the first L_dense dense)
            Field("L_dense", hf="mlp_layer_types", kinds=("dense", "sparse")),
        )
    return (
        HF_VOCAB,
        HF_LAYERS,
        HF_HEADS,
        HF_WIDTH,
        *HF_DENSE_FIRST_MOE_FIELDS,
        # absent: DeepseekV2/V3Config's default rank, 1536 (a low-rank query); null: plain
        Field("q_lora", hf="q_lora_rank", hf_presence=True, hf_default=1),
        Field("r_q", hf="q_lora_rank"),
        Field("r_kv", hf="kv_lora_rank"),
        Field("d_nope", hf="qk_nope_head_dim"),
        Field("d_rope", hf="qk_rope_head_dim"),
        Field("d_v", hf="v_head_dim"),
        HF_TIED_NO,
        *((Field("n_mtp", hf="num_nextn_predict_layers", hf_default=0),) if v3 else ()),
    )


def _heads(hp):
    """num_key_value_heads as the forward needs it: M (the released configs' value)."""
    return hp["M"]


# Config keys that change no weight but that a forward of a small set needs (the memory-and-
# compute measurement runs one): the V3 config class defaults to 128 key/value heads, which MLA
# repeats M // 128 times (none, below 128 heads: it decompresses a key and a value per head),
# and to 8 expert groups, 4 of them picked (more groups than a small set's experts). One group
# of all the experts: each token still goes to k of them, all the count depends on.
_FORWARD = Sets.each({"num_key_value_heads": _heads, "n_group": 1, "topk_group": 1},
                     why="latent attention decompresses a key and a value for each of the M "
                         "heads; the experts form one group")

_REQUIRES = (
    Require("attention_bias", (False,), "DeepSeek's attention projections have no biases"),
    Require("mlp_bias", (False,), "DeepSeek's feed-forward projections have no biases"),
    Require("moe_layer_freq", (1,), "every block after the first L_dense is sparse"),
)

MAPPING_V2 = family_table(
    "deepseek_v2", hf="DeepseekV2ForCausalLM",
    fields=_fields(v3=False),
    restrictions=(
        Sets("attention_bias", False, why="DeepSeek's attention projections have no biases"),
        Sets("mlp_bias", False, why="DeepSeek's feed-forward projections have no biases"),
        Sets("q_lora_rank", _q_lora_rank,
            why="transformers takes a plain query projection as q_lora_rank null, a low-rank one as its rank r_q"),
        *Requires.each(_REQUIRES),
    ),
    free=FREE,
    hf_normalize=dense_first_at_most_all,
)
MAPPING_V3 = family_table(
    "deepseek_v3", hf="DeepseekV3ForCausalLM",
    fields=_fields(v3=True),
    restrictions=(
        Sets("attention_bias", False, why="DeepSeek's attention projections have no biases"),
        Sets("q_lora_rank", _q_lora_rank,
            why="transformers takes a plain query projection as q_lora_rank null, a low-rank one as its rank r_q"),
        *_FORWARD,
        *Requires.each(_REQUIRES),
    ),
    free=FREE,
    hf_normalize=dense_first_at_most_all,
)


_MTP_REASON = ("transformers (DeepseekV3ForCausalLM, DeepseekV32ForCausalLM) does not build the "
               "multi-token-prediction module (num_nextn_predict_layers): the checkpoint stores "
               "it as layer L (model.layers.61), which loading ignores. It is why DeepSeek-V3's "
               "model card says 685B and its config builds 671B")


def _forward_notes(*, v3: bool, v32: bool) -> tuple[Holds, ...]:
    """What a forward pass needs and no build checks (notes beside the count; the cost proofs
    sample inside them). V2's rotary part views pairs of channels as complex numbers in place
    (``torch.view_as_complex`` on a float32 slice), which needs every stride but the last even:
    the query head's width d_nope + d_rope and the compressed key's r_kv + d_rope. V3.2's
    indexer splits each of its heads into a rotary part of d_rope and the rest."""
    if v32:
        return (Holds(Relation(d_idx, ">=", d_rope, reason="the indexer's head holds the rotary width"),
                      binds="forward",
                      why="DeepSeek-V3.2's lightning indexer splits each of its heads (index_head_dim) into "
                          "qk_rope_head_dim rotated channels and the rest: a forward pass needs d_idx >= d_rope"),)
    if v3:
        return ()
    why = ("DeepseekV2's rotary embedding views a float32 slice of the {} as complex numbers in place "
           "(torch.view_as_complex), which needs every stride but the last even: a forward pass needs {} even")
    return (Holds(Divisible(d_nope, 2), binds="forward",
                  why=why.format("query head (width d_nope + d_rope)", "qk_nope_head_dim")),
            Holds(Divisible(r_kv, 2), binds="forward",
                  why=why.format("compressed key (width r_kv + d_rope)", "kv_lora_rank")))


def _register(arch_id: str, *, v3: bool, examples: dict, v32: bool = False,
              mapping: Table | None = None) -> None:
    formula = _tree(arch_id, v3=v3, v32=v32)
    optional = {k_act: 6 if not v3 else 8, tied: 0, q_lora: 1, r_q: 1536, L_dense: 1}
    required: tuple = (v, d_e, M, d_f, L, E, E_s, d_fe, r_kv, d_nope, d_rope, d_v)
    fixed = DENSE_FIRST.fixed()
    if v3:
        optional[n_mtp] = 0
    if v32:  # the query is always low-rank: r_q is needed, q_lora fixed
        del optional[q_lora], optional[r_q]
        required += (r_q, H_idx, d_idx)
        fixed[q_lora] = 1
    register(hf_causal_lm(
        arch_id,
        formula=formula,
        examples=examples,
        required=required,
        optional=optional,
        restrictions=(
            *Fixed.each(fixed,
                why="the sparse blocks are those after the first L_dense dense ones (L_moe = L − L_dense); "
                    "DeepSeek-V3.2's query projection is always low-rank (q_lora = 1)"),
            Holds(Divisible(d_rope, 2),
                why="the decoupled rotary part of each query/key head rotates pairs of channels (qk_rope_head_dim "
                    "even)"),
            *Holds.each(() if v3 else (Divisible(d_e, M),),
                why="DeepseekV2Attention refuses a hidden size that the heads do not divide"),
            ROUTED_TO_AT_MOST_ALL,
            *Holds.each(DENSE_FIRST.constraints()),
            *_forward_notes(v3=v3, v32=v32),
        ),
        # transformers' validation is this model's own constraint (only transformers builds
        # it): an even rotary width (head_dim is d_rope there) and, for V2, d_e a multiple of M
        # (a check MLA's shapes do not need)
        counting="trainable parameters of the causal LM: token embedding, L blocks (latent "
                 "attention; a dense SwiGLU in the first L_dense, routed and shared experts in "
                 "the rest), final RMS norm, untied LM head"
                 + ("; the multi-token-prediction module when n_mtp > 0 (its checkpoint stores "
                    "one: transformers does not build it); the router's score-correction bias is "
                    "a non-trainable buffer, counted apart" if v3 else "")
                 + ("; each block's lightning indexer" if v32 else "")
                 + "; active parameters count k of the E routed experts",
        mapping=mapping or (MAPPING_V3 if v3 else MAPPING_V2),
        transformers=Transformers(
            # the tree's own patterns are transformers' names (no Keras build exists)
            # (the MTP module is not built: the delta removes it)
            weights={p: m for p, m in own_weights(formula).items()
                     if p.split(".")[0] != "mtp"},
            deltas=(Delta("mtp", None, _MTP_REASON),) if v3 else (),
        ),
    ))


_TINY = dict(v=97, d_e=32, M=4, d_f=48, L=3, E=6, E_s=2, d_fe=12, k=2, r_q=10, r_kv=8,
             d_nope=6, d_rope=4, d_v=5)
# without the low-rank query, r_q is unused: left at its default (a config has no value for it)
_PLAIN = {h: x for h, x in _TINY.items() if h != "r_q"}

_register(
    "deepseek_v2",
    v3=False,
    examples={
        "tiny": _TINY,
        "tiny_plain_query": {**_PLAIN, "q_lora": 0, "L_dense": 0, "E_s": 1},
        "tiny_all_dense_tied": {**_TINY, "L": 2, "L_dense": 2, "tied": 1},
    },
)
_register(
    "deepseek_v3",
    v3=True,
    examples={
        "tiny": _TINY,
        "tiny_mtp": {**_TINY, "n_mtp": 1, "L_dense": 2, "E_s": 1, "k": 3},
        "tiny_plain_query_tied": {**_PLAIN, "q_lora": 0, "tied": 1, "n_mtp": 2},
    },
)

MAPPING_V32 = family_table(
    "deepseek_v32", hf="DeepseekV32ForCausalLM",
    fields=_fields(v3=True, v32=True),
    restrictions=(
        Sets("attention_bias", False, why="DeepSeek's attention projections have no biases"),
        Sets("mlp_bias", False, why="DeepSeek's feed-forward projections have no biases"),
        *_FORWARD,
        *Requires.each(_REQUIRES),
    ),
    free=FREE | {"index_topk", "layer_types"},
)
_register(
    "deepseek_v32",
    v3=True,
    v32=True,
    mapping=MAPPING_V32,
    examples={
        "tiny": {**_TINY, "H_idx": 3, "d_idx": 4},
        "tiny_mtp_tied": {**_TINY, "H_idx": 2, "d_idx": 6, "n_mtp": 1, "tied": 1, "L_dense": 0},
    },
)
