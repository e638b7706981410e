"""The third name table: GGUF tensor names (llama.cpp's ``convert_hf_to_gguf.py``) → the
transformers names the families already declare, per GGUF architecture, and the transformers
config its metadata gives. A GGUF tensor is then attributed exactly as a safetensors one.

The names are not retyped here: llama.cpp's own ``gguf`` package declares, per architecture,
the tensors it stores (``gguf.MODEL_TENSORS`` → ``gguf.TENSOR_NAMES``: ``blk.{bid}.attn_q``) and
the transformers names each one is converted from (``gguf.TensorNameMap``:
``model.layers.{bid}.self_attn.q_proj``, ``transformer.h.{bid}.attn.c_attn``, ...).
:mod:`paramcount.checkpoints.gguf_io` inverts that map: every transformers name a GGUF tensor
may come from is a candidate, and :mod:`paramcount.checkpoints.check` keeps the one the family's
formula tree claims (the first, each transformers name taken once). A table here declares only
what that map does not say (data, keyed by ``general.architecture``):

- ``model_type`` and ``hf_class``: the transformers config the metadata stand for (``moe``: the
  pair when the metadata has an ``expert_count``: Mixtral converts as ``llama``);
- ``names``: (GGUF regex, transformers template) overrides, tried before gguf's map (a name the
  converter rewrites first: DeepSeek's ``e_score_correction_bias``);
- ``fuse``: two GGUF pieces of one block (names after ``blk.N.``) that transformers holds as
  one tensor (an MoE layer's
  ``ffn_gate_exps`` and ``ffn_up_exps``: ``gate_up_proj``, concatenated along axis 1; MLA's
  ``attn_k_b`` and ``attn_v_b``, which llama.cpp splits out of ``kv_b_proj`` and transposes:
  axis None, the counts summed);
- ``config``: the metadata keys (under the architecture's prefix) → transformers config keys
  (dotted: nested); ``derive``: the rest, computed from the metadata and the tensors' shapes (a
  key no one metadata key holds, the model type a layout says); ``present``: config flags a
  tensor's presence says (Granite's biases). A ``config.json`` beside the file overrides them;
  None where the metadata do not give the family's config (then that file, or ``--config``,
  must);
- ``dropped``: what llama.cpp's converter does not write of the transformers model (BERT's
  pooler and MLM head) or writes cut short (RoBERTa's first position rows), each a named term
  with its reason (:class:`Dropped`): the stored count differs from the formula by these only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["TABLES", "Dropped", "GGUFTable"]

_COMMON = MappingProxyType({
    "embedding_length": "hidden_size", "feed_forward_length": "intermediate_size",
    "block_count": "num_hidden_layers", "attention.head_count": "num_attention_heads",
    "attention.head_count_kv": "num_key_value_heads", "attention.key_length": "head_dim",
    "expert_count": "num_local_experts", "expert_used_count": "num_experts_per_tok"})
_NO_KV = MappingProxyType({k: v for k, v in _COMMON.items() if k != "attention.head_count_kv"})
_NO_EXPERTS = MappingProxyType({k: v for k, v in _COMMON.items() if k != "expert_count"})
_QWEN_MOE = MappingProxyType({
    **_COMMON, "expert_count": "num_experts",
    "expert_feed_forward_length": "moe_intermediate_size",
    "expert_shared_feed_forward_length": "shared_expert_intermediate_size"})
_OLMOE = MappingProxyType({**_COMMON, "expert_count": "num_experts"})
# GPT-2 and GPT-J spell theirs as GPT-2 did (GPT2Config: n_embd, n_layer, n_head, n_inner).
_GPT2 = MappingProxyType({"embedding_length": "n_embd", "block_count": "n_layer",
                          "attention.head_count": "n_head", "feed_forward_length": "n_inner",
                          "context_length": "n_positions"})
_GPTJ = MappingProxyType({k: v for k, v in _GPT2.items() if k != "context_length"})
_BLOOM = MappingProxyType({"embedding_length": "hidden_size", "block_count": "n_layer",
                           "attention.head_count": "n_head"})

# Llama 4's converter writes its dense MLP width as feed_forward_length, the experts' apart
_LLAMA4 = MappingProxyType({**_COMMON, "feed_forward_length": "intermediate_size_mlp",
                            "expert_feed_forward_length": "intermediate_size",
                            "interleave_moe_layer_step": "interleave_moe_layer_step"})
# GLM-4.5's as DeepSeek's: routed and shared experts, dense leading blocks, the MTP layer
_GLM4_MOE = MappingProxyType({
    **_NO_EXPERTS, "expert_count": "n_routed_experts", "expert_shared_count": "n_shared_experts",
    "expert_feed_forward_length": "moe_intermediate_size",
    "leading_dense_block_count": "first_k_dense_replace",
    "nextn_predict_layers": "num_nextn_predict_layers"})
# DeepSeek's MLA ranks and widths, routed and shared experts, dense leading blocks (its
# key_length is MLA's absorbed kv_lora_rank + rope width: not a head width)
_DEEPSEEK = MappingProxyType({
    **{k: v for k, v in _GLM4_MOE.items() if k not in ("attention.key_length",
                                                       "attention.head_count_kv",
                                                       "nextn_predict_layers")},
    "attention.q_lora_rank": "q_lora_rank", "attention.kv_lora_rank": "kv_lora_rank",
    "rope.dimension_count": "qk_rope_head_dim", "attention.value_length_mla": "v_head_dim"})


def _deepseek(meta: Mapping, shapes: Mapping) -> dict:
    """DeepSeek-V2 or V3 (V3's router has a score-correction bias: exp_probs_b), and the
    no-rope query width: MLA's key width less its rope part (an older converter's key_length)"""
    key = meta.get("attention.key_length_mla", meta.get("attention.key_length"))
    v3 = any(n.endswith("exp_probs_b.bias") for n in shapes)
    return {"qk_nope_head_dim": key - meta["rope.dimension_count"],
            "model_type": "deepseek_v3" if v3 else "deepseek_v2",
            "architectures": ["DeepseekV3ForCausalLM" if v3 else "DeepseekV2ForCausalLM"],
            **({} if "attention.q_lora_rank" in meta else {"q_lora_rank": None})}


# T5's encoder and decoder stacks (decoder_block_count where the config gives one)
_T5 = MappingProxyType({
    "embedding_length": "d_model", "feed_forward_length": "d_ff", "block_count": "num_layers",
    "decoder_block_count": "num_decoder_layers", "attention.head_count": "num_heads",
    "attention.key_length": "d_kv", "attention.relative_buckets_count":
    "relative_attention_num_buckets"})


def _t5(meta: Mapping, shapes: Mapping) -> dict:
    """T5's feed-forward: gated (T5 v1.1, a gate beside the up projection) or not"""
    return {"feed_forward_proj": "gated-gelu" if "enc.blk.0.ffn_gate.weight" in shapes
            else "relu"}


# the gated delta net's widths, as llama.cpp's Qwen3-Next and Qwen 3.5 converters write them
_GDN = {"ssm.conv_kernel": "linear_conv_kernel_dim", "ssm.state_size": "linear_key_head_dim",
        "ssm.group_count": "linear_num_key_heads", "ssm.time_step_rank": "linear_num_value_heads"}
_QWEN_NEXT = MappingProxyType({**_QWEN_MOE, **_GDN})
_QWEN35 = MappingProxyType({**_COMMON, **_GDN})


def _gated_delta(meta: Mapping, shapes: Mapping) -> dict:
    """The value heads' width (inner size over their count), and each block's kind: full
    attention where it stores attn_q, the gated delta net elsewhere"""
    return {"linear_value_head_dim": meta["ssm.inner_size"] // meta["ssm.time_step_rank"],
            "layer_types": ["full_attention" if f"blk.{i}.attn_q.weight" in shapes
                            else "linear_attention" for i in range(meta["block_count"])]}


# ERNIE 4.5 MoE's experts, and the blocks that hold them (from moe_layer_start_index, every
# moe_layer_interval-th)
_ERNIE_MOE = MappingProxyType({
    **_NO_EXPERTS, "expert_count": "moe_num_experts", "expert_used_count": "moe_k",
    "expert_feed_forward_length": "moe_intermediate_size",
    "expert_shared_count": "moe_num_shared_experts",
    "interleave_moe_layer_step": "moe_layer_interval",
    "leading_dense_block_count": "moe_layer_start_index"})

# Granite 4.0-H: Granite MoE's experts and shared MLP, Mamba-2's mixer (llama.cpp writes the
# Mamba heads as time_step_rank, the key/value heads per block: 0 in a Mamba block)
_GRANITE_HYBRID = MappingProxyType({
    "embedding_length": "hidden_size", "block_count": "num_hidden_layers",
    "attention.head_count": "num_attention_heads", "feed_forward_length": "intermediate_size",
    "expert_count": "num_local_experts", "expert_used_count": "num_experts_per_tok",
    "expert_shared_feed_forward_length": "shared_intermediate_size",
    "ssm.conv_kernel": "mamba_d_conv", "ssm.state_size": "mamba_d_state",
    "ssm.group_count": "mamba_n_groups", "ssm.time_step_rank": "mamba_n_heads"})


def _granite_hybrid(meta: Mapping, shapes: Mapping) -> dict:
    """Each block's kind (attention where it stores attn_q), its key/value heads (the per-block
    list's largest), Mamba's expand (inner size over the model's width)"""
    kv = meta["attention.head_count_kv"]
    kinds = ["attention" if f"blk.{i}.attn_q.weight" in shapes else "mamba"
             for i in range(meta["block_count"])]
    return {"layer_types": kinds, "num_key_value_heads": max(kv) if isinstance(kv, list) else kv,
            "mamba_expand": meta["ssm.inner_size"] // meta["embedding_length"]}


_JAMBA = MappingProxyType({
    "embedding_length": "hidden_size", "block_count": "num_hidden_layers",
    "attention.head_count": "num_attention_heads", "feed_forward_length": "intermediate_size",
    "expert_count": "num_experts", "expert_used_count": "num_experts_per_tok",
    "ssm.conv_kernel": "mamba_d_conv", "ssm.state_size": "mamba_d_state",
    "ssm.time_step_rank": "mamba_dt_rank"})


def _periodic(blocks: list[int], layers: int) -> tuple[int, int]:
    """(period, offset) of blocks that recur from the first (one block: the period L)"""
    return (blocks[1] - blocks[0] if len(blocks) > 1 else layers), blocks[0]


def _jamba(meta: Mapping, shapes: Mapping) -> dict:
    """Jamba's layout from its tensors: attention where a block stores attn_q, experts where it
    stores ffn_down_exps (each recurring with a period from an offset); its key/value heads from
    the per-block list, its expand from the inner size"""
    layers, kv = meta["block_count"], meta["attention.head_count_kv"]
    att = [i for i in range(layers) if f"blk.{i}.attn_q.weight" in shapes]
    moe = [i for i in range(layers) if {f"blk.{i}.ffn_down_exps.weight",
                                         f"blk.{i}.ffn_down_exps"} & set(shapes)]
    out = {"num_key_value_heads": max(kv) if isinstance(kv, list) else kv,
           "mamba_expand": meta["ssm.inner_size"] // meta["embedding_length"],
           "attn_layer_period": _periodic(att, layers)[0],
           "attn_layer_offset": _periodic(att, layers)[1]}
    if moe:
        out["expert_layer_period"], out["expert_layer_offset"] = _periodic(moe, layers)
    return out


_NEMOTRON_H = MappingProxyType({
    "embedding_length": "hidden_size", "block_count": "num_hidden_layers",
    "attention.head_count": "num_attention_heads", "expert_used_count": "num_experts_per_tok",
    "ssm.conv_kernel": "conv_kernel", "ssm.state_size": "ssm_state_size",
    "ssm.group_count": "n_groups"})


def _nemotron_h(meta: Mapping, shapes: Mapping) -> dict:
    """Nemotron-H's blocks from their tensors (hybrid_override_pattern: M Mamba, * attention,
    - MLP, E experts) and its widths from their shapes: the head width and key/value heads from
    attn_q and attn_k, the Mamba heads from ssm_dt's bias, the MLP's, the experts' and the
    shared expert's widths from their projections"""
    def first(stem: str):
        return next((shapes[n] for i in range(meta["block_count"]) for n in (
            f"blk.{i}.{stem}.weight", f"blk.{i}.{stem}", f"blk.{i}.{stem}.bias") if n in shapes),
            None)

    def kind(i: int) -> str:
        has = {n.split(".")[2] for n in shapes if n.startswith(f"blk.{i}.")}
        return ("*" if "attn_q" in has else "E" if "ffn_gate_inp" in has else
                "-" if "ffn_up" in has else "M")

    out: dict = {"hybrid_override_pattern": "".join(kind(i) for i in range(meta["block_count"])),
                 "use_conv_bias": any(n.endswith("ssm_conv1d.bias") for n in shapes),
                 "use_bias": any(n.endswith("ssm_in.bias") for n in shapes),
                 "mlp_bias": any(n.endswith(("ffn_up.bias", "ffn_up_exps.bias")) for n in shapes)}
    if (q := first("attn_q")) is not None and (k := first("attn_k")) is not None:
        out["head_dim"] = q[0] // meta["attention.head_count"]
        out["num_key_value_heads"] = k[0] // out["head_dim"]
    if (dt := first("ssm_dt")) is not None and (o := first("ssm_out")) is not None:
        out["mamba_num_heads"], out["mamba_head_dim"] = dt[0], o[-1] // dt[0]
    if (up := first("ffn_up")) is not None:
        out["intermediate_size"] = up[0]
    if (router := first("ffn_gate_inp")) is not None:
        out["n_routed_experts"] = router[0]
        out["moe_intermediate_size"] = first("ffn_down_exps")[-1]
    if (shared := first("ffn_up_shexp")) is not None:
        out["moe_shared_expert_intermediate_size"] = shared[0]
    return out


# DBRX's config nests its attention and experts
_DBRX = MappingProxyType({
    "embedding_length": "d_model", "block_count": "n_layers", "attention.head_count": "n_heads",
    "attention.head_count_kv": "attn_config.kv_n_heads", "context_length": "max_seq_len",
    "feed_forward_length": "ffn_config.ffn_hidden_size",
    "expert_count": "ffn_config.moe_num_experts", "expert_used_count": "ffn_config.moe_top_k"})
_MAMBA = MappingProxyType({
    "embedding_length": "hidden_size", "block_count": "num_hidden_layers",
    "ssm.state_size": "state_size", "ssm.conv_kernel": "conv_kernel",
    "ssm.time_step_rank": "time_step_rank"})


def _expand(meta: Mapping, shapes: Mapping) -> dict:
    """Mamba's expand: its inner width over the model's"""
    inner, width = meta["ssm.inner_size"], meta["embedding_length"]
    return {"expand": inner // width} if inner % width == 0 else {"intermediate_size": inner}


_MAMBA2 = MappingProxyType({
    "embedding_length": "hidden_size", "block_count": "num_hidden_layers",
    "ssm.state_size": "state_size", "ssm.conv_kernel": "conv_kernel",
    "ssm.group_count": "n_groups", "ssm.time_step_rank": "num_heads"})


def _heads(meta: Mapping, shapes: Mapping) -> dict:
    """Mamba-2's head width and expand: its inner width (heads × head width, which its
    converter writes as time_step_rank and inner_size) over the heads and over the model's"""
    inner, heads, width = meta["ssm.inner_size"], meta["ssm.time_step_rank"], meta["embedding_length"]
    return {"head_dim": inner // heads, **({"expand": inner // width} if inner % width == 0 else {})}


_FALCON = MappingProxyType({"embedding_length": "hidden_size", "block_count": "num_hidden_layers",
                            "attention.head_count": "num_attention_heads",
                            "attention.head_count_kv": "num_kv_heads"})


def _falcon(meta: Mapping, shapes: Mapping) -> dict:
    """Falcon's layout, from its tensors: its converter writes feed_forward_length as 4 × d_e
    whatever the model's; one norm or two (attn_norm_2), biases or none; parallel blocks (the
    sequential Falcon-RW is not one llama.cpp converts)"""
    return {"parallel_attn": True, "new_decoder_architecture": True,
            "ffn_hidden_size": shapes["blk.0.ffn_up.weight"][0],
            "num_ln_in_parallel_attn": 2 if "blk.0.attn_norm_2.weight" in shapes else 1,
            "bias": "blk.0.attn_qkv.bias" in shapes}


_EXPERTS = (("ffn_gate_exps.weight", "ffn_up_exps.weight",
             "model.layers.{bid}.mlp.experts.gate_up_proj", 1),)
# Llama 4 holds its experts under feed_forward
_EXPERTS_FF = (("ffn_gate_exps.weight", "ffn_up_exps.weight",
                "model.layers.{bid}.feed_forward.experts.gate_up_proj", 1),)
# gpt-oss's experts have biases, stored (and fused) as their weights are
_EXPERTS_BIAS = (*_EXPERTS, ("ffn_gate_exps.bias", "ffn_up_exps.bias",
                             "model.layers.{bid}.mlp.experts.gate_up_proj_bias", 1))
# Granite MoE's under block_sparse_moe, named as transformers 5 names them (gguf's map knows
# its router as router.layer, its experts as input_linear / output_linear)
_EXPERTS_SPARSE = (("ffn_gate_exps.weight", "ffn_up_exps.weight",
                    "model.layers.{bid}.block_sparse_moe.experts.gate_up_proj", 1),)
_GRANITE_MOE = (
    (r"^blk\.(\d+)\.ffn_gate_inp\.weight$", r"model.layers.\1.block_sparse_moe.router.weight"),
    (r"^blk\.(\d+)\.ffn_down_exps(\.weight)?$",
     r"model.layers.\1.block_sparse_moe.experts.down_proj"))
# Granite 4.0-H's shared MLP (input_linear: gate and up along axis 0), which llama.cpp stores
# as ffn_*_shexp beside experts and as ffn_* in a dense model
_SHARED_MLP = tuple((f"ffn_gate{s}.weight", f"ffn_up{s}.weight",
                     "model.layers.{bid}.shared_mlp.input_linear.weight", 0) for s in ("_shexp", ""))
_SHARED_MLP_DENSE = ((r"^blk\.(\d+)\.ffn_down\.weight$",
                      r"model.layers.\1.shared_mlp.output_linear.weight"),)
_NEMOTRON_MOE = (
    (r"^blk\.(\d+)\.ffn_(up|down)_exps(\.weight)?$", r"model.layers.\1.mixer.experts.\2_proj"),
    (r"^blk\.(\d+)\.exp_probs_b\.bias$", r"model.layers.\1.mixer.gate.e_score_correction_bias"))
_GPT_OSS = ((r"^blk\.(\d+)\.ffn_down_exps\.bias$", r"model.layers.\1.mlp.experts.down_proj_bias"),)
_MLA = (("attn_k_b.weight", "attn_v_b.weight", "model.layers.{bid}.self_attn.kv_b_proj.weight",
         None),)
# llama.cpp's converter renames DeepSeek's router bias before its map sees it
# (e_score_correction_bias → e_score_correction.bias): exp_probs_b.bias
_EXP_PROBS = ((r"^blk\.(\d+)\.exp_probs_b\.bias$",
               r"model.layers.\1.mlp.gate.e_score_correction_bias"),)
# ERNIE 4.5's sits under the router (gate.moe_statics), MiniMax-M2's beside it
_ERNIE_PROBS = ((r"^blk\.(\d+)\.exp_probs_b\.bias$",
                 r"model.layers.\1.mlp.gate.moe_statics.e_score_correction_bias"),)
_MINIMAX_PROBS = ((r"^blk\.(\d+)\.exp_probs_b\.bias$",
                   r"model.layers.\1.mlp.e_score_correction_bias"),)

_ALTUP = ((r"^altup_proj\.weight$", "model.altup_projections.0.weight"),
          (r"^altup_unembd_proj\.weight$", "model.altup_unembed_projections.0.weight"))

# and Mamba-2's dt_bias (→ dt_proj.bias: ssm_dt.bias)
_DT_BIAS = ((r"^blk\.(\d+)\.ssm_dt\.bias$", r"backbone.layers.\1.mixer.dt_bias"),)
_DT_BIAS_H1 = ((r"^blk\.(\d+)\.ssm_dt\.bias$", r"model.layers.\1.mamba.dt_bias"),)
# Qwen3-Next's gated delta net (linear_attn) holds one too
_DT_BIAS_NEXT = ((r"^blk\.(\d+)\.ssm_dt\.bias$", r"model.layers.\1.linear_attn.dt_bias"),)


@dataclass(frozen=True)
class Dropped:
    """Transformers tensors llama.cpp's converter leaves out of the GGUF file: a term of the
    stored-versus-built difference (:mod:`paramcount.checkpoints.converted`), with its reason.

    ``names``: the transformers names (after the prefix the converter strips: ``bert.``) whose
    formula leaves then hold no tensor; ``rows``: instead, the tensor is written without its
    first ``config[key] + add`` rows; ``model_types``: the config's model types the converter
    does this for (all, when empty)."""

    term: str
    reason: str
    names: tuple[str, ...]
    rows: tuple[str, int] | None = None
    model_types: tuple[str, ...] = ()


# llama.cpp's BertModel converter (its filter_tensors), which RoBERTa, XLM-RoBERTa and
# DistilBERT convert through: "we are only using BERT for embeddings"
_BERT_DROPS = (
    Dropped("pooler dropped by the converter", "llama.cpp's converter skips BertModel's pooler "
            "(pooler.dense): it writes BERT for embeddings only", ("pooler.dense.weight",
                                                                   "pooler.dense.bias")),
    Dropped("MLM head dropped by the converter", "llama.cpp's converter skips the masked-LM "
            "head (BERT's cls.predictions, DistilBERT's vocab_*): it writes the encoder only",
            tuple(f"cls.predictions.{n}" for n in (
                "transform.dense.weight", "transform.dense.bias", "transform.LayerNorm.weight",
                "transform.LayerNorm.bias", "bias", "decoder.weight", "decoder.bias"))
            + tuple(f"vocab_{n}" for n in (
                "transform.weight", "transform.bias", "layer_norm.weight", "layer_norm.bias",
                "projector.weight", "projector.bias"))),
    Dropped("padding position rows trimmed by the converter", "position ids start at "
            "pad_token_id + 1 (fairseq's offset): llama.cpp's RoBERTa and XLM-RoBERTa converters "
            "cut the rows before it from position_embd", ("embeddings.position_embeddings.weight",),
            rows=("pad_token_id", 1), model_types=("roberta", "xlm-roberta")),
)


def _bert(meta: Mapping, shapes: Mapping) -> dict:
    """Which encoder a bert file holds, and its config: DistilBERT has no token-type table;
    XLM-RoBERTa a SentencePiece (``t5``) vocabulary, RoBERTa a BPE (``gpt2``) one (or a one-row
    type table), their context length cut by the pad_token_id + 1 position rows the converter
    trims; BERT the rest."""
    width, ffn = meta["embedding_length"], meta["feed_forward_length"]
    layers, heads, n = meta["block_count"], meta["attention.head_count"], meta["context_length"]
    types = shapes.get("token_types.weight")
    if types is None:
        return {"model_type": "distilbert", "architectures": ["DistilBertModel"], "dim": width,
                "hidden_dim": ffn, "n_layers": layers, "n_heads": heads,
                "max_position_embeddings": n}
    rows = types[0] if len(types) == 2 else 1  # a one-row table may be stored squeezed
    tok, pad = meta.get("tokenizer.ggml.model"), meta.get("tokenizer.ggml.padding_token_id")
    base = {"hidden_size": width, "intermediate_size": ffn, "num_hidden_layers": layers,
            "num_attention_heads": heads, "type_vocab_size": rows}
    if tok in ("t5", "gpt2") or rows == 1:
        pad = pad if isinstance(pad, int) else 1
        kind = ("xlm-roberta", "XLMRobertaModel") if tok == "t5" else ("roberta", "RobertaModel")
        return {**base, "model_type": kind[0], "architectures": [kind[1]], "pad_token_id": pad,
                "max_position_embeddings": n + pad + 1}
    return {**base, "model_type": "bert", "architectures": ["BertModel"],
            "max_position_embeddings": n}


@dataclass(frozen=True)
class GGUFTable:
    """What gguf's own name map does not say of one GGUF architecture (see the module)."""

    model_type: str
    hf_class: str
    names: tuple[tuple[str, str], ...] = ()
    fuse: tuple[tuple[str, str, str, int | None], ...] = ()
    config: Mapping[str, str] | None = field(default_factory=lambda: _COMMON)
    # model_type and class when the metadata has an expert_count (Mixtral converts as "llama")
    moe: tuple[str, str] | None = None
    # config flags no metadata key holds, read from a tensor's presence: (GGUF name, key)
    present: tuple[tuple[str, str], ...] = ()
    # (hub prefix, transformers prefix): names transformers 5 renames from the hub checkpoint's,
    # which gguf's map knows (Nemotron-H's backbone. → model.)
    prefix: tuple[tuple[str, str], ...] = ()
    # what the converter does not write (or writes cut short): named terms
    dropped: tuple[Dropped, ...] = ()
    # config keys no one metadata key holds, from the metadata (arch prefix stripped) and the
    # tensors' shapes: a key computed, or the model type and class a layout says
    derive: Callable[[Mapping[str, object], Mapping[str, tuple[int, ...]]], dict] | None = None


TABLES: dict[str, GGUFTable] = {
    "llama": GGUFTable("llama", "LlamaForCausalLM", fuse=_EXPERTS,
                       moe=("mixtral", "MixtralForCausalLM")),
    "gemma": GGUFTable("gemma", "GemmaForCausalLM"),
    "gemma2": GGUFTable("gemma2", "Gemma2ForCausalLM"),
    "gemma3": GGUFTable("gemma3_text", "Gemma3ForCausalLM"),
    "phi3": GGUFTable("phi3", "Phi3ForCausalLM"),
    "phi2": GGUFTable("phi", "PhiForCausalLM", config=_NO_KV),
    "qwen2": GGUFTable("qwen2", "Qwen2ForCausalLM"),
    "qwen3": GGUFTable("qwen3", "Qwen3ForCausalLM"),
    "qwen2moe": GGUFTable("qwen2_moe", "Qwen2MoeForCausalLM", fuse=_EXPERTS, config=_QWEN_MOE),
    "qwen3moe": GGUFTable("qwen3_moe", "Qwen3MoeForCausalLM", fuse=_EXPERTS, config=_QWEN_MOE),
    "olmo2": GGUFTable("olmo2", "Olmo2ForCausalLM"),
    "olmoe": GGUFTable("olmoe", "OlmoeForCausalLM", fuse=_EXPERTS, config=_OLMOE),
    "granite": GGUFTable("granite", "GraniteForCausalLM", present=(
        ("blk.0.attn_q.bias", "attention_bias"), ("blk.0.ffn_up.bias", "mlp_bias"))),
    "command-r": GGUFTable("cohere", "CohereForCausalLM", present=(
        ("blk.0.attn_q.bias", "attention_bias"), ("blk.0.attn_q_norm.weight", "use_qk_norm"))),
    "gpt2": GGUFTable("gpt2", "GPT2LMHeadModel", config=_GPT2),
    "gptj": GGUFTable("gptj", "GPTJForCausalLM", config=_GPTJ),
    "gptneox": GGUFTable("gpt_neox", "GPTNeoXForCausalLM", config=_NO_KV),
    "bloom": GGUFTable("bloom", "BloomForCausalLM", config=_BLOOM),
    # Falcon's layout (parallel attention, one or two norms, multi-query) is not in its metadata
    "falcon": GGUFTable("falcon", "FalconForCausalLM", config=_FALCON, derive=_falcon),
    # DeepSeek's MLA ranks and its dense leading blocks, and Mamba's state sizes, are spelled
    # otherwise in the metadata than in the config: the config beside the file gives them
    "deepseek2": GGUFTable("deepseek_v3", "DeepseekV3ForCausalLM", _EXP_PROBS,
                           _EXPERTS + _MLA, config=_DEEPSEEK, derive=_deepseek),
    "mamba": GGUFTable("mamba", "MambaForCausalLM", config=_MAMBA, derive=_expand, present=(
        ("blk.0.ssm_conv1d.bias", "use_conv_bias"), ("blk.0.ssm_in.bias", "use_bias"))),
    "smollm3": GGUFTable("smollm3", "SmolLM3ForCausalLM"),
    "gpt-oss": GGUFTable("gpt_oss", "GptOssForCausalLM", _GPT_OSS, _EXPERTS_BIAS),
    "glm4moe": GGUFTable("glm4_moe", "Glm4MoeForCausalLM", _EXP_PROBS, _EXPERTS, config=_GLM4_MOE,
                         present=(("blk.0.attn_q.bias", "attention_bias"),
                                  ("blk.0.attn_q_norm.weight", "use_qk_norm"))),
    "phimoe": GGUFTable("phimoe", "PhimoeForCausalLM", fuse=_EXPERTS,
                        present=(("output.bias", "lm_head_bias"),
                                 ("blk.0.attn_q.bias", "attention_bias"))),
    "llama4": GGUFTable("llama4_text", "Llama4ForCausalLM", fuse=_EXPERTS_FF, config=_LLAMA4),

    "mamba2": GGUFTable("mamba2", "Mamba2ForCausalLM", _DT_BIAS, config=_MAMBA2, derive=_heads,
                        present=(("blk.0.ssm_conv1d.bias", "use_conv_bias"),
                                 ("blk.0.ssm_in.bias", "use_bias"))),
    # StarCoder2's biases and norm epsilon, and Cohere 2's sliding pattern, are not in the
    # metadata: the config beside the file gives them (OLMo 3 converts as olmo2)
    "starcoder2": GGUFTable("starcoder2", "Starcoder2ForCausalLM",
                            present=(("blk.0.attn_q.bias", "use_bias"),)),
    "cohere2": GGUFTable("cohere2", "Cohere2ForCausalLM"),
    "ernie4_5": GGUFTable("ernie4_5", "Ernie4_5ForCausalLM"),
    "ernie4_5-moe": GGUFTable("ernie4_5_moe", "Ernie4_5_MoeForCausalLM", _ERNIE_PROBS, _EXPERTS,
                              config=_ERNIE_MOE),
    "minimax-m2": GGUFTable("minimax_m2", "MiniMaxM2ForCausalLM", _MINIMAX_PROBS, _EXPERTS),
    "dbrx": GGUFTable("dbrx", "DbrxForCausalLM", config=_DBRX),
    "granitemoe": GGUFTable("granitemoe", "GraniteMoeForCausalLM", _GRANITE_MOE, _EXPERTS_SPARSE,
                            present=(("blk.0.attn_q.bias", "attention_bias"),)),
    "jamba": GGUFTable("jamba", "JambaForCausalLM", fuse=_EXPERTS_FF, config=_JAMBA, derive=_jamba,
                       present=(("blk.0.ssm_conv1d.bias", "mamba_conv_bias"),
                                ("blk.0.ssm_in.bias", "mamba_proj_bias"))),
    "falcon-h1": GGUFTable("falcon_h1", "FalconH1ForCausalLM", _DT_BIAS_H1, config=None),
    "nemotron_h": GGUFTable("nemotron_h", "NemotronHForCausalLM", _DT_BIAS, config=_NEMOTRON_H,
                            derive=_nemotron_h,
                            prefix=(("backbone.", "model."),)),
    # Nemotron-H with routed experts (llama.cpp stacks them itself: gguf's map names none)
    "nemotron_h_moe": GGUFTable("nemotron_h", "NemotronHForCausalLM", (*_DT_BIAS, *_NEMOTRON_MOE),
                                config=_NEMOTRON_H, derive=_nemotron_h,
                                prefix=(("backbone.", "model."),)),
    "granitehybrid": GGUFTable("granitemoehybrid", "GraniteMoeHybridForCausalLM",
                               (*_GRANITE_MOE, *_DT_BIAS_H1, *_SHARED_MLP_DENSE),
                               _EXPERTS_SPARSE + _SHARED_MLP, config=_GRANITE_HYBRID,
                               derive=_granite_hybrid, present=(
                                   ("blk.0.attn_q.bias", "attention_bias"),
                                   ("blk.0.ssm_conv1d.bias", "mamba_conv_bias"),
                                   ("blk.0.ssm_in.bias", "mamba_proj_bias"))),
    # its linear-attention layout: the ssm keys, and each block's kind from its tensors
    "qwen3next": GGUFTable("qwen3_next", "Qwen3NextForCausalLM", _DT_BIAS_NEXT, _EXPERTS,
                           config=_QWEN_NEXT, derive=_gated_delta),
    # Qwen 3.5's text model: the same gated delta net, its projections split (gguf's map
    # names them: attn_qkv, attn_gate, ssm_beta, ssm_alpha)
    "qwen35": GGUFTable("qwen3_5_text", "Qwen3_5ForCausalLM", _DT_BIAS_NEXT, config=_QWEN35,
                        derive=_gated_delta),
    "qwen35moe": GGUFTable("qwen3_5_moe_text", "Qwen3_5MoeForCausalLM", _DT_BIAS_NEXT, _EXPERTS,
                           config=_QWEN_NEXT, derive=_gated_delta),
    # EmbeddingGemma: Gemma 3's text stack without a head (Gemma3TextModel)
    "gemma-embedding": GGUFTable("gemma3_text", "Gemma3TextModel"),
    # BERT, RoBERTa, XLM-RoBERTa and DistilBERT all convert as bert, without the pooler and
    # MLM heads (and RoBERTa's padding position rows): the layout and vocabulary say which
    "bert": GGUFTable("bert", "BertModel", config={}, dropped=_BERT_DROPS, derive=_bert),
    # encoder and decoder stacks (enc.blk.N, dec.blk.N)
    "t5": GGUFTable("t5", "T5ForConditionalGeneration", config=_T5, derive=_t5),
    # Gemma 3n's AltUp projections, which llama.cpp stacks into one tensor each: named as the
    # first, so the stack lands on the leaf that claims them all (the per-layer inputs, LAuReL
    # and AltUp blocks gguf's map names); the config beside the file gives the layout
    "gemma3n": GGUFTable("gemma3n_text", "Gemma3nForCausalLM", _ALTUP, config=None),
    # Gemma 4's sliding/global layout and shared K=V are not in the metadata
    "gemma4": GGUFTable("gemma4_text", "Gemma4ForCausalLM", config=None),
}
