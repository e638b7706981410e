"""What a family declares of its released checkpoints, in its folder's ``checkpoints.py``
(:mod:`paramcount.analyze.checkpoints` reads them; a family file imports only this module, so
that reading a checkpoint finds the tables without importing any family's formula):

- ``GGUF``: id → the GGUF architectures (``general.architecture``) llama.cpp's converter writes
  it as; ``NO_GGUF``: id → why no GGUF of it is checked (one of the two for every id with a
  transformers reference: ``tests/test_checkpoints_gguf_hf.py``);
- ``GGUF_TABLES``: GGUF architecture → its :class:`GGUFTable` (the metadata keys, the layout
  rules and the name overrides gguf's own map does not say), the table kept by the family whose
  transformers class it reads as;
- ``LAYOUTS``: ``model_type`` → a published :class:`Layout` that transformers loads into other
  tensors (experts stored one tensor per expert);
- ``PUBLISHED``: a config file in ``tests/configs`` → (Hub repository, the Hub's safetensors
  total, the stored layout, the stored-versus-built terms that explain the Hub figure).

Below the classes, the pieces several families' tables share, named for what they are (an
expert layout, a mixer's bias, the metadata keys most converters write). The keys are those
llama.cpp's converters write (``TextModel.set_gguf_parameters`` and each model class's own).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = [
    "COMMON", "DT_BIAS", "EXPERTS", "EXPERTS_FF", "EXP_PROBS", "GATED_DELTA", "GATED_DELTA_MOE",
    "GDN_DT_BIAS", "MMPROJ", "MOE_LEADING_DENSE", "MOE_SHARED_EXPERT", "NOT_REGISTERED", "NO_ARCH",
    "NO_EXPERTS", "NO_KV", "PER_EXPERT", "SPARSE_MOE_EXPERTS", "SPARSE_MOE_ROUTER", "Dropped",
    "GGUFTable", "Layout", "gated_delta"]

# The metadata keys (under the architecture's prefix) most converters write → config keys.
COMMON = MappingProxyType({
    "embedding_length": "hidden_size", "feed_forward_length": "intermediate_size",
    "block_count": "num_hidden_layers", "attention.head_count": "num_attention_heads",
    "attention.head_count_kv": "num_key_value_heads", "attention.key_length": "head_dim",
    "expert_count": "num_local_experts", "expert_used_count": "num_experts_per_tok"})
NO_KV = MappingProxyType({k: v for k, v in COMMON.items() if k != "attention.head_count_kv"})
NO_EXPERTS = MappingProxyType({k: v for k, v in COMMON.items() if k != "expert_count"})
# routed experts spelled num_experts, with a shared expert beside them
MOE_SHARED_EXPERT = MappingProxyType({
    **COMMON, "expert_count": "num_experts",
    "expert_feed_forward_length": "moe_intermediate_size",
    "expert_shared_feed_forward_length": "shared_expert_intermediate_size"})
# routed and shared experts after dense leading blocks (GLM-4.5's and DeepSeek's spelling)
MOE_LEADING_DENSE = MappingProxyType({
    **NO_EXPERTS, "expert_count": "n_routed_experts", "expert_shared_count": "n_shared_experts",
    "expert_feed_forward_length": "moe_intermediate_size",
    "leading_dense_block_count": "first_k_dense_replace"})
# the gated delta net's widths (linear attention), as its converters write them
GATED_DELTA = {"ssm.conv_kernel": "linear_conv_kernel_dim",
               "ssm.state_size": "linear_key_head_dim", "ssm.group_count": "linear_num_key_heads",
               "ssm.time_step_rank": "linear_num_value_heads"}
# the gated delta net beside routed experts and a shared expert
GATED_DELTA_MOE = MappingProxyType({**MOE_SHARED_EXPERT, **GATED_DELTA})


def gated_delta(meta: Mapping, shapes: Mapping) -> dict:
    """The value heads' width (inner size over their count), and each block's kind: full
    attention where it stores attn_q, the gated delta net elsewhere"""
    return {"linear_value_head_dim": meta["ssm.inner_size"] // meta["ssm.time_step_rank"],
            "layer_types": ["full_attention" if f"blk.{i}.attn_q.weight" in shapes
                            else "linear_attention" for i in range(meta["block_count"])]}


# fuse: routed experts' gate and up pieces, which transformers holds as one gate_up_proj
EXPERTS = (("ffn_gate_exps.weight", "ffn_up_exps.weight",
            "model.layers.{bid}.mlp.experts.gate_up_proj", 1),)
# the same under feed_forward
EXPERTS_FF = (("ffn_gate_exps.weight", "ffn_up_exps.weight",
               "model.layers.{bid}.feed_forward.experts.gate_up_proj", 1),)
# the same under block_sparse_moe, named as transformers 5 names them (gguf's map knows the
# router as router.layer, the experts as input_linear / output_linear)
SPARSE_MOE_EXPERTS = (("ffn_gate_exps.weight", "ffn_up_exps.weight",
                       "model.layers.{bid}.block_sparse_moe.experts.gate_up_proj", 1),)
SPARSE_MOE_ROUTER = (
    (r"^blk\.(\d+)\.ffn_gate_inp\.weight$", r"model.layers.\1.block_sparse_moe.router.weight"),
    (r"^blk\.(\d+)\.ffn_down_exps(\.weight)?$",
     r"model.layers.\1.block_sparse_moe.experts.down_proj"))
# the router's score-correction bias, which llama.cpp's converter renames before its map sees it
# (e_score_correction_bias → e_score_correction.bias): exp_probs_b.bias
EXP_PROBS = ((r"^blk\.(\d+)\.exp_probs_b\.bias$",
              r"model.layers.\1.mlp.gate.e_score_correction_bias"),)
# a Mamba-2 mixer's dt_bias under backbone. (gguf's map takes it for dt_proj.bias: ssm_dt.bias)
DT_BIAS = ((r"^blk\.(\d+)\.ssm_dt\.bias$", r"backbone.layers.\1.mixer.dt_bias"),)
# the gated delta net's (linear_attn) dt_bias
GDN_DT_BIAS = ((r"^blk\.(\d+)\.ssm_dt\.bias$", r"model.layers.\1.linear_attn.dt_bias"),)

# why an id has no GGUF check, in the words most families share
NO_ARCH = "llama.cpp has no architecture for it (gguf declares none)"
MMPROJ = ("llama.cpp splits it in two files: the text model (a GGUF of its language model's "
          "architecture) and the vision tower as a separate mmproj file (clip), which no table "
          "reads")
NOT_REGISTERED = ("llama.cpp's converter does not take this class ({}); it converts the base "
                  "model, which is checked")


@dataclass(frozen=True)
class Dropped:
    """Transformers tensors llama.cpp's converter leaves out of the GGUF file: a term of the
    stored-versus-built difference (:mod:`paramcount.analyze.checkpoints.converted`), with its
    reason.

    ``names``: the transformers names (after the prefix the converter strips) whose formula
    leaves then hold no tensor; ``rows``: instead, the tensor is written without its first
    ``config[key] + add`` rows; ``model_types``: the config's model types the converter does
    this for (all, when empty)."""

    term: str
    reason: str
    names: tuple[str, ...]
    rows: tuple[str, int] | None = None
    model_types: tuple[str, ...] = ()


@dataclass(frozen=True)
class GGUFTable:
    """What gguf's own name map does not say of one GGUF architecture (data, keyed by
    ``general.architecture``):

    - ``model_type`` and ``hf_class``: the transformers config the metadata stand for (``moe``:
      the pair when the metadata has an ``expert_count``: a mixture of experts converted under
      its dense model's name);
    - ``names``: (GGUF regex, transformers template) overrides, tried before gguf's map (a name
      the converter rewrites first: a router's ``e_score_correction_bias``);
    - ``fuse``: two GGUF pieces of one block (names after ``blk.N.``) that transformers holds as
      one tensor (an MoE layer's ``ffn_gate_exps`` and ``ffn_up_exps``: ``gate_up_proj``,
      concatenated along axis 1; MLA's ``attn_k_b`` and ``attn_v_b``, which llama.cpp splits out
      of ``kv_b_proj`` and transposes: axis None, the counts summed);
    - ``config``: the metadata keys (under the architecture's prefix) → transformers config keys
      (dotted: nested); ``derive``: the rest, computed from the metadata and the tensors' shapes
      (a key no one metadata key holds, the model type a layout says); ``present``: config flags
      a tensor's presence says (a bias). A ``config.json`` beside the file overrides them; None
      where the metadata do not give the family's config (then that file, or ``--config``,
      must);
    - ``dropped``: what llama.cpp's converter does not write of the transformers model (a pooler,
      an MLM head) or writes cut short (position rows), each a named term with its reason
      (:class:`Dropped`): the stored count differs from the formula by these only;
    - ``shown_as``: the id the report resolves its names against, where the class stands for
      several ids (else the id the class reads as).
    """

    model_type: str
    hf_class: str
    names: tuple[tuple[str, str], ...] = ()
    fuse: tuple[tuple[str, str, str, int | None], ...] = ()
    config: Mapping[str, str] | None = field(default_factory=lambda: COMMON)
    moe: tuple[str, str] | None = None
    # config flags no metadata key holds, read from a tensor's presence: (GGUF name, key)
    present: tuple[tuple[str, str], ...] = ()
    # (hub prefix, transformers prefix): names transformers 5 renames from the hub checkpoint's,
    # which gguf's map knows (backbone. → model.)
    prefix: tuple[tuple[str, str], ...] = ()
    dropped: tuple[Dropped, ...] = ()
    derive: Callable[[Mapping[str, object], Mapping[str, tuple[int, ...]]], dict] | None = None
    shown_as: str | None = None


@dataclass(frozen=True)
class Layout:
    """A published layout transformers 5 loads into other tensors, declared per ``model_type``
    as transformers' ``conversion_mapping`` declares the same conversion. ``renames``: (regex,
    replacement) on names; ``experts``: a regex with groups (prefix, expert index, piece);
    ``pieces``: piece → (target name, slot): slots of one target are concatenated along axis 1
    in slot order, experts stacked along a new axis 0."""

    renames: tuple[tuple[str, str], ...]
    experts: str
    pieces: Mapping[str, tuple[str, int]]


# experts stored one tensor per expert under mlp.experts (gate_proj, up_proj, down_proj)
PER_EXPERT = Layout((), r"^(.*\.mlp\.experts\.)(\d+)\.(gate_proj|up_proj|down_proj)\.weight$",
                    {"gate_proj": ("gate_up_proj", 0), "up_proj": ("gate_up_proj", 1),
                     "down_proj": ("down_proj", 0)})
