"""Nemotron-H (NVIDIA 2025, "Nemotron-H: A Family of Accurate and Efficient Hybrid
Mamba-Transformer Models"; Nemotron Nano 2), as transformers builds it: NemotronHForCausalLM.
KerasHub has no Nemotron-H, so transformers is the reference.

L pre-norm blocks, each one RMS norm and one mixer of the kind its config lists for it
(``layers_block_type``, or the older ``hybrid_override_pattern`` string: M, *, -, E):

- a Mamba-2 mixer (:func:`paramcount.model.components.ssm.mamba2_mixer`) of H_ssm heads of width
  d_ssm (its inner width H_ssm·d_ssm, not an expansion of d_e), in the L_ssm Mamba blocks;
- grouped-query attention without positions or biases (M query and M_kv key/value heads of
  width d_k), in L_att blocks;
- a squared-ReLU MLP d_e → d_f → d_e (two matrices, not gated), in L_mlp blocks;
- a mixture of experts in L_moe blocks (Nemotron 3): a router with its score-correction bias (a
  buffer, not trained), E squared-ReLU experts of width d_fe (k per token), one shared expert of
  width d_fs beside them. With ``moe_latent_size`` set (moe_lat = 1, Nemotron 3 Super's latent
  MoE) the routed experts work on a latent of width d_lat: ``fc1_latent_proj`` d_e → d_lat before
  them and ``fc2_latent_proj`` d_lat → d_e after (biases when ``mlp_bias``), which every token
  uses; the router and the shared expert still work on d_e.

Token embedding, final RMS norm and an LM head that is never tied (NemotronHForCausalLM ties no
weights, whatever ``tie_word_embeddings`` says). No positional encoding.
"""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.formula import zero
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import E
from paramcount.core.symbols import G_ssm
from paramcount.core.symbols import H_ssm
from paramcount.core.symbols import K_conv
from paramcount.core.symbols import L
from paramcount.core.symbols import L_att
from paramcount.core.symbols import L_mlp
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import b_conv
from paramcount.core.symbols import b_ffn
from paramcount.core.symbols import b_proj
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_fe
from paramcount.core.symbols import d_fs
from paramcount.core.symbols import d_k
from paramcount.core.symbols import d_lat
from paramcount.core.symbols import d_ssm
from paramcount.core.symbols import d_state
from paramcount.core.symbols import moe_lat
from paramcount.core.symbols import v
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._defaults import family_table
from paramcount.families._defaults import not_formulated
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HF_EXPERT_FFN
from paramcount.families._lineages import HF_FFN
from paramcount.families._lineages import HF_HEAD_DIM_OR_128
from paramcount.families._lineages import HF_HEADS
from paramcount.families._lineages import HF_KV_HEADS_OR_M
from paramcount.families._lineages import HF_LAYERS
from paramcount.families._lineages import HF_MLP_BIAS
from paramcount.families._lineages import HF_ROUTED_EXPERTS
from paramcount.families._lineages import HF_TOP_K
from paramcount.families._lineages import HF_VOCAB
from paramcount.families._lineages import HF_WIDTH
from paramcount.families._lineages import ROUTED_TO_AT_MOST_ALL
from paramcount.families._lineages import SSM_CONV
from paramcount.families._lineages import SSM_CONV_BIAS
from paramcount.families._lineages import SSM_GROUPS
from paramcount.families._lineages import SSM_PROJ_BIAS
from paramcount.model.components.basic import dense
from paramcount.model.components.basic import embedding
from paramcount.model.components.hf_decoder import attention
from paramcount.model.components.modern import k_act
from paramcount.model.components.modern import mixture_of_experts
from paramcount.model.components.modern import rms_norm
from paramcount.model.components.ssm import mamba2_mixer
from paramcount.model.components.ssm import ssd_chunk
from paramcount.model.components.stacks import BLOCK_TYPES
from paramcount.model.components.stacks import NEMOTRON_PATTERN_CHARS
from paramcount.model.components.stacks import L_moe
from paramcount.model.components.stacks import block_types
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("nemotron_h",)  # the ids this folder registers


def _mlp(name: str, inner, match: str, at: str = ""):
    """Up and down, squared ReLU between (``at``: a look-behind naming the module right above,
    where the experts' tensors share the names)."""
    return group(name, dense("up", d_e, inner, bias=b_ffn, match=at + "up_proj"),
                 dense("down", inner, d_e, bias=b_ffn, match=at + "down_proj"),
                 match=match, kind="feed-forward")


_router = group(
    "router",
    leaf("weight", E * d_e, match="weight", kind="router", note="expert affinities d_e → E",
         d_in=d_e, d_out=E),
    leaf("score_bias", E, match="e_score_correction_bias", trainable=False, kind="router",
         note="per-expert score-correction bias for top-k selection (a buffer: updated by the "
              "load-balancing rule, not trained)", macs=0),
    match="gate",
    kind="router",
)
# the routed experts' input and output width: the latent's, or d_e
_d_x = moe_lat * d_lat + (1 - moe_lat) * d_e
_expert = group(
    "expert",
    leaf("up", d_fe * _d_x, match="up_proj", kind="feed-forward",
         note="squared-ReLU expert: up and down, no gate (on the latent when moe_lat = 1)",
         d_in=_d_x, d_out=d_fe),
    leaf("down", _d_x * d_fe, match="down_proj", kind="feed-forward", d_in=d_fe, d_out=_d_x),
    match="experts",
)
_routed = mixture_of_experts("moe", experts=E, top_k=k_act, expert=_expert, router=_router,
                             shared=_mlp("shared", d_fs, "shared_experts"), match="mixer")
_moe = group(
    "moe",
    *_routed.children,
    dense("latent_in", d_e, moe_lat * d_lat, bias=b_ffn, match="fc1_latent_proj",
          kind="feed-forward", note="d_e → d_lat before the routed experts (moe_lat = 1)"),
    dense("latent_out", moe_lat * d_lat, d_e, bias=moe_lat * b_ffn, match="fc2_latent_proj",
          kind="feed-forward", note="d_lat → d_e after them (moe_lat = 1)"),
    match="mixer",
    kind="feed-forward",
)

FORMULA = group(
    "nemotron_h",
    group("embeddings", embedding("token", v, match="model/embeddings"),
          zero("positions", "none: no positional encoding, the Mamba blocks carry order",
               kind="position")),
    BLOCK_TYPES.stack(
        "blocks",
        common=(rms_norm("norm", match=r"(?<=\d/)norm"),),
        per_kind={"attention": (attention(match="mixer"),),
                  "mlp": (_mlp("mlp", d_f, "mixer", at="(?<=mixer/)"),),
                  "moe": (_moe,),
                  "mamba": (mamba2_mixer("mamba", match="mixer", inner=H_ssm * d_ssm),)},
        match=r"model/layers/\d+",
        note="L blocks, each a norm and one mixer: attention in L_att, an MLP in L_mlp, "
             "experts in L_moe, Mamba-2 in the other L_ssm",
    ),
    rms_norm("final_norm", match="model/norm_f"),
    leaf("head", d_e * v, match="lm_head", kind="head", d_in=d_e, d_out=v,
         note="output projection, never tied: NemotronHForCausalLM ties no weights, whatever "
              "tie_word_embeddings says"),
)


_LEGACY = {"mamba": "linear_attention", "attention": "full_attention"}


def _normalize(config: Mapping) -> Mapping:
    """``hybrid_override_pattern`` (M, *, -, E per block) read as the ``layers_block_type`` list
    NemotronHConfig makes of it; the blocks are the list's entries (num_hidden_layers is only
    a check in NemotronHConfig)."""
    c = dict(config)
    pattern = c.get("hybrid_override_pattern")
    if c.get("layers_block_type") is None and isinstance(c.get("layer_types"), list):
        c["layers_block_type"] = c["layer_types"]  # NemotronHConfig's attribute_map
    if (c.get("layers_block_type") is None and isinstance(pattern, str)
            and set(pattern) <= set(NEMOTRON_PATTERN_CHARS)):
        c["layers_block_type"] = [NEMOTRON_PATTERN_CHARS[ch] for ch in pattern]
    if c.get("layers_block_type") is None and "hybrid_override_pattern" not in c:
        # neither given: NemotronHConfig's own four blocks, whatever num_hidden_layers says
        c["layers_block_type"] = ["linear_attention", "moe", "full_attention", "mlp"]
    if isinstance(c.get("layers_block_type"), list):  # the legacy names transformers remaps
        c["layers_block_type"] = [_LEGACY.get(t, t) if isinstance(t, str) else t
                                  for t in c["layers_block_type"]]
    if c.get("num_hidden_layers") is None and isinstance(c.get("layers_block_type"), list):
        c["num_hidden_layers"] = len(c["layers_block_type"])
    return c


_KINDS = {"layers_block_type": "layers_block_type"}


def _latent_size(hp):
    """moe_latent_size as transformers takes it: d_lat, or null for experts on d_e."""
    return hp["d_lat"] if hp["moe_lat"] else None


MAPPING = family_table(
    "nemotron_h", hf="NemotronHForCausalLM",
    fields=(
        HF_VOCAB, HF_LAYERS, HF_HEADS, HF_KV_HEADS_OR_M,
        # NemotronHConfig's head_dim (default 128); the older attention_head_dim is not read
        HF_HEAD_DIM_OR_128, HF_WIDTH, HF_FFN,
        Field("H_ssm", hf="mamba_num_heads"),
        Field("d_ssm", hf="mamba_head_dim"),
        SSM_GROUPS,
        Field("d_state", hf="ssm_state_size"),
        SSM_CONV, SSM_CONV_BIAS, SSM_PROJ_BIAS, HF_MLP_BIAS,
        HF_ROUTED_EXPERTS, HF_TOP_K,
        HF_EXPERT_FFN,
        Field("d_fs", hf="moe_shared_expert_intermediate_size"),
        Field("moe_lat", hf="moe_latent_size", hf_presence=True),
        Field("d_lat", hf="moe_latent_size"),
        Field("L_att", stack=BLOCK_TYPES, options=_KINDS),
        Field("L_mlp", stack=BLOCK_TYPES, options=_KINDS),
        Field("L_moe", stack=BLOCK_TYPES, options=_KINDS),
    ),
    restrictions=(
        Sets("layers_block_type", block_types,
            why="NemotronHConfig takes the stack's block kinds as layers_block_type (which blocks changes no count)"),
        Sets("moe_latent_size", _latent_size,
            why="transformers takes experts on d_e as moe_latent_size null, a latent as its width d_lat"),
        Sets("attention_bias", False, why="Nemotron-H's attention has no biases"),
    ),
    hf_normalize=_normalize,
)

register(hf_causal_lm(
    "nemotron_h",
    formula=FORMULA,
    required=(v, d_e, M, M_kv, d_f, L, H_ssm, d_ssm, L_att, L_mlp),
    optional={d_k: 128, G_ssm: 8, d_state: 128, K_conv: 4, b_conv: 1, b_proj: 0, b_ffn: 0,
              L_moe: 0, E: 8, k_act: 2, d_fe: 7688, d_fs: 7688, moe_lat: 0, d_lat: 1024},
    restrictions=(
        *Fixed.each(BLOCK_TYPES.fixed(),
            why="the Mamba blocks are those of no other kind (L_ssm = L − L_att − L_mlp − L_moe)"),
        GQA,
        ROUTED_TO_AT_MOST_ALL,
        *Holds.each(BLOCK_TYPES.constraints()),
    ),
    mapping=MAPPING,
    cost_config=ssd_chunk("chunk_size", 128),
))

# memory and compute: what the trees do not formulate yet (frameworks.unformulated)
_KV = (
    "its attention and Mamba-2 layers are the same module name (model.layers.i.mixer): an "
    "attention layer's keys and values and a Mamba layer's conv and SSM states are both measured "
    "at <mixer>/cache, which the attention's cache leaf and the mixer's both claim (each path "
    "ends in cache under mixer), so neither is attributed, though each agrees in value "
    "(B·T·2·M_kv·d_k per attention layer, B·(conv_dim·K_conv + d_in·N) per Mamba layer)")
register(not_formulated("nemotron_h", kv=_KV), replace=True)
