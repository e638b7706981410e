"""What a GGUF file's metadata say of its model's transformers config, per architecture: the
metadata keys (under the architecture's prefix) each table reads as a config key, and the rules
for what no one key holds (a width from a tensor's shape, each block's kind from the tensors it
stores, the model type a layout says). :mod:`paramcount.analyze.checkpoints.gguf_names` declares them
per table; :func:`paramcount.analyze.checkpoints.gguf_io.read` applies them. The keys are those
llama.cpp's converters write (``TextModel.set_gguf_parameters`` and each model class's own)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

COMMON = MappingProxyType({
    "embedding_length": "hidden_size", "feed_forward_length": "intermediate_size",
    "block_count": "num_hidden_layers", "attention.head_count": "num_attention_heads",
    "attention.head_count_kv": "num_key_value_heads", "attention.key_length": "head_dim",
    "expert_count": "num_local_experts", "expert_used_count": "num_experts_per_tok"})
NO_KV = MappingProxyType({k: v for k, v in COMMON.items() if k != "attention.head_count_kv"})
NO_EXPERTS = MappingProxyType({k: v for k, v in COMMON.items() if k != "expert_count"})
QWEN_MOE = MappingProxyType({
    **COMMON, "expert_count": "num_experts",
    "expert_feed_forward_length": "moe_intermediate_size",
    "expert_shared_feed_forward_length": "shared_expert_intermediate_size"})
OLMOE = MappingProxyType({**COMMON, "expert_count": "num_experts"})
# GPT-2 and GPT-J spell theirs as GPT-2 did (GPT2Config: n_embd, n_layer, n_head, n_inner).
GPT2 = MappingProxyType({"embedding_length": "n_embd", "block_count": "n_layer",
                          "attention.head_count": "n_head", "feed_forward_length": "n_inner",
                          "context_length": "n_positions"})
GPTJ = MappingProxyType({k: v for k, v in GPT2.items() if k != "context_length"})
BLOOM = MappingProxyType({"embedding_length": "hidden_size", "block_count": "n_layer",
                           "attention.head_count": "n_head"})

# Llama 4's converter writes its dense MLP width as feed_forward_length, the experts' apart
LLAMA4 = MappingProxyType({**COMMON, "feed_forward_length": "intermediate_size_mlp",
                            "expert_feed_forward_length": "intermediate_size",
                            "interleave_moe_layer_step": "interleave_moe_layer_step"})
# GLM-4.5's as DeepSeek's: routed and shared experts, dense leading blocks, the MTP layer
GLM4_MOE = MappingProxyType({
    **NO_EXPERTS, "expert_count": "n_routed_experts", "expert_shared_count": "n_shared_experts",
    "expert_feed_forward_length": "moe_intermediate_size",
    "leading_dense_block_count": "first_k_dense_replace",
    "nextn_predict_layers": "num_nextn_predict_layers"})
# DeepSeek's MLA ranks and widths, routed and shared experts, dense leading blocks (its
# key_length is MLA's absorbed kv_lora_rank + rope width: not a head width)
DEEPSEEK = MappingProxyType({
    **{k: v for k, v in GLM4_MOE.items() if k not in ("attention.key_length",
                                                       "attention.head_count_kv",
                                                       "nextn_predict_layers")},
    "attention.q_lora_rank": "q_lora_rank", "attention.kv_lora_rank": "kv_lora_rank",
    "rope.dimension_count": "qk_rope_head_dim", "attention.value_length_mla": "v_head_dim"})


def deepseek(meta: Mapping, shapes: Mapping) -> dict:
    """DeepSeek-V2 or V3 (V3's router has a score-correction bias: exp_probs_b), and the
    no-rope query width: MLA's key width less its rope part (an older converter's key_length)"""
    key = meta.get("attention.key_length_mla", meta.get("attention.key_length"))
    v3 = any(n.endswith("exp_probs_b.bias") for n in shapes)
    return {"qk_nope_head_dim": key - meta["rope.dimension_count"],
            "model_type": "deepseek_v3" if v3 else "deepseek_v2",
            "architectures": ["DeepseekV3ForCausalLM" if v3 else "DeepseekV2ForCausalLM"],
            **({} if "attention.q_lora_rank" in meta else {"q_lora_rank": None})}


# T5's encoder and decoder stacks (decoder_block_count where the config gives one)
T5 = MappingProxyType({
    "embedding_length": "d_model", "feed_forward_length": "d_ff", "block_count": "num_layers",
    "decoder_block_count": "num_decoder_layers", "attention.head_count": "num_heads",
    "attention.key_length": "d_kv", "attention.relative_buckets_count":
    "relative_attention_num_buckets"})


def t5(meta: Mapping, shapes: Mapping) -> dict:
    """T5's feed-forward: gated (T5 v1.1, a gate beside the up projection) or not"""
    return {"feed_forward_proj": "gated-gelu" if "enc.blk.0.ffn_gate.weight" in shapes
            else "relu"}


# the gated delta net's widths, as llama.cpp's Qwen3-Next and Qwen 3.5 converters write them
GDN = {"ssm.conv_kernel": "linear_conv_kernel_dim", "ssm.state_size": "linear_key_head_dim",
        "ssm.group_count": "linear_num_key_heads", "ssm.time_step_rank": "linear_num_value_heads"}
QWEN_NEXT = MappingProxyType({**QWEN_MOE, **GDN})
QWEN35 = MappingProxyType({**COMMON, **GDN})


def gated_delta(meta: Mapping, shapes: Mapping) -> dict:
    """The value heads' width (inner size over their count), and each block's kind: full
    attention where it stores attn_q, the gated delta net elsewhere"""
    return {"linear_value_head_dim": meta["ssm.inner_size"] // meta["ssm.time_step_rank"],
            "layer_types": ["full_attention" if f"blk.{i}.attn_q.weight" in shapes
                            else "linear_attention" for i in range(meta["block_count"])]}


# ERNIE 4.5 MoE's experts, and the blocks that hold them (from moe_layer_start_index, every
# moe_layer_interval-th)
ERNIE_MOE = MappingProxyType({
    **NO_EXPERTS, "expert_count": "moe_num_experts", "expert_used_count": "moe_k",
    "expert_feed_forward_length": "moe_intermediate_size",
    "expert_shared_count": "moe_num_shared_experts",
    "interleave_moe_layer_step": "moe_layer_interval",
    "leading_dense_block_count": "moe_layer_start_index"})

# Granite 4.0-H: Granite MoE's experts and shared MLP, Mamba-2's mixer (llama.cpp writes the
# Mamba heads as time_step_rank, the key/value heads per block: 0 in a Mamba block)
GRANITE_HYBRID = MappingProxyType({
    "embedding_length": "hidden_size", "block_count": "num_hidden_layers",
    "attention.head_count": "num_attention_heads", "feed_forward_length": "intermediate_size",
    "expert_count": "num_local_experts", "expert_used_count": "num_experts_per_tok",
    "expert_shared_feed_forward_length": "shared_intermediate_size",
    "ssm.conv_kernel": "mamba_d_conv", "ssm.state_size": "mamba_d_state",
    "ssm.group_count": "mamba_n_groups", "ssm.time_step_rank": "mamba_n_heads"})


def granite_hybrid(meta: Mapping, shapes: Mapping) -> dict:
    """Each block's kind (attention where it stores attn_q), its key/value heads (the per-block
    list's largest), Mamba's expand (inner size over the model's width)"""
    kv = meta["attention.head_count_kv"]
    kinds = ["attention" if f"blk.{i}.attn_q.weight" in shapes else "mamba"
             for i in range(meta["block_count"])]
    return {"layer_types": kinds, "num_key_value_heads": max(kv) if isinstance(kv, list) else kv,
            "mamba_expand": meta["ssm.inner_size"] // meta["embedding_length"]}


JAMBA = MappingProxyType({
    "embedding_length": "hidden_size", "block_count": "num_hidden_layers",
    "attention.head_count": "num_attention_heads", "feed_forward_length": "intermediate_size",
    "expert_count": "num_experts", "expert_used_count": "num_experts_per_tok",
    "ssm.conv_kernel": "mamba_d_conv", "ssm.state_size": "mamba_d_state",
    "ssm.time_step_rank": "mamba_dt_rank"})


def _periodic(blocks: list[int], layers: int) -> tuple[int, int]:
    """(period, offset) of blocks that recur from the first (one block: the period L)"""
    return (blocks[1] - blocks[0] if len(blocks) > 1 else layers), blocks[0]


def jamba(meta: Mapping, shapes: Mapping) -> dict:
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


NEMOTRON_H = MappingProxyType({
    "embedding_length": "hidden_size", "block_count": "num_hidden_layers",
    "attention.head_count": "num_attention_heads", "expert_used_count": "num_experts_per_tok",
    "ssm.conv_kernel": "conv_kernel", "ssm.state_size": "ssm_state_size",
    "ssm.group_count": "n_groups"})


def nemotron_h(meta: Mapping, shapes: Mapping) -> dict:
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
DBRX = MappingProxyType({
    "embedding_length": "d_model", "block_count": "n_layers", "attention.head_count": "n_heads",
    "attention.head_count_kv": "attn_config.kv_n_heads", "context_length": "max_seq_len",
    "feed_forward_length": "ffn_config.ffn_hidden_size",
    "expert_count": "ffn_config.moe_num_experts", "expert_used_count": "ffn_config.moe_top_k"})
MAMBA = MappingProxyType({
    "embedding_length": "hidden_size", "block_count": "num_hidden_layers",
    "ssm.state_size": "state_size", "ssm.conv_kernel": "conv_kernel",
    "ssm.time_step_rank": "time_step_rank"})


def expand(meta: Mapping, shapes: Mapping) -> dict:
    """Mamba's expand: its inner width over the model's"""
    inner, width = meta["ssm.inner_size"], meta["embedding_length"]
    return {"expand": inner // width} if inner % width == 0 else {"intermediate_size": inner}


MAMBA2 = MappingProxyType({
    "embedding_length": "hidden_size", "block_count": "num_hidden_layers",
    "ssm.state_size": "state_size", "ssm.conv_kernel": "conv_kernel",
    "ssm.group_count": "n_groups", "ssm.time_step_rank": "num_heads"})


def heads(meta: Mapping, shapes: Mapping) -> dict:
    """Mamba-2's head width and expand: its inner width (heads × head width, which its
    converter writes as time_step_rank and inner_size) over the heads and over the model's"""
    inner, heads, width = meta["ssm.inner_size"], meta["ssm.time_step_rank"], meta["embedding_length"]
    return {"head_dim": inner // heads, **({"expand": inner // width} if inner % width == 0 else {})}


FALCON = MappingProxyType({"embedding_length": "hidden_size", "block_count": "num_hidden_layers",
                            "attention.head_count": "num_attention_heads",
                            "attention.head_count_kv": "num_kv_heads"})


def falcon(meta: Mapping, shapes: Mapping) -> dict:
    """Falcon's layout, from its tensors: its converter writes feed_forward_length as 4 × d_e
    whatever the model's; one norm or two (attn_norm_2), biases or none; parallel blocks (the
    sequential Falcon-RW is not one llama.cpp converts)"""
    return {"parallel_attn": True, "new_decoder_architecture": True,
            "ffn_hidden_size": shapes["blk.0.ffn_up.weight"][0],
            "num_ln_in_parallel_attn": 2 if "blk.0.attn_norm_2.weight" in shapes else 1,
            "bias": "blk.0.attn_qkv.bias" in shapes}


def bert(meta: Mapping, shapes: Mapping) -> dict:
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


# Falcon-H1: attention and a Mamba-2 mixer side by side in every block (the mixer's inner width
# as its converter writes it: mamba_d_ssm)
FALCON_H1 = MappingProxyType({
    **{k: v for k, v in COMMON.items() if not k.startswith("expert")},
    "ssm.conv_kernel": "mamba_d_conv", "ssm.state_size": "mamba_d_state",
    "ssm.group_count": "mamba_n_groups", "ssm.time_step_rank": "mamba_n_heads",
    "ssm.inner_size": "mamba_d_ssm"})


GEMMA4 = MappingProxyType({"embedding_length": "hidden_size", "block_count": "num_hidden_layers",
                           "attention.head_count": "num_attention_heads"})


def gemma4(meta: Mapping, shapes: Mapping) -> dict:
    """Gemma 4's layout from its tensors: a global block is one whose attention differs from
    the sliding blocks' (the most common kind): its head width (attn_q's rows over the heads),
    its key/value heads, and no attn_v when keys are values (blocks all alike: Gemma 4's
    default pattern, which counts the same); the feed-forward width from
    ffn_up; per-layer inputs (per_layer_token_embd) stated as their width"""
    layers, heads = meta["block_count"], meta["attention.head_count"]
    shape = {i: (shapes[f"blk.{i}.attn_q.weight"][0] // heads, shapes[f"blk.{i}.attn_k.weight"][0],
                 f"blk.{i}.attn_v.weight" in shapes) for i in range(layers)}
    kinds = list(shape.values())
    local = max(kinds, key=kinds.count)
    glob = next((k for k in kinds if k != local), local)
    per_layer = shapes.get("per_layer_token_embd.weight")
    out = {"head_dim": local[0], "num_key_value_heads": local[1] // local[0],
           "global_head_dim": glob[0], "num_global_key_value_heads": glob[1] // glob[0],
           "attention_k_eq_v": not glob[2],
           "intermediate_size": shapes["blk.0.ffn_up.weight"][0],
           "hidden_size_per_layer_input": per_layer[-1] // layers if per_layer else 0}
    # blocks all alike, no tensor tells them apart: the last of every 6 global, and the last
    # (Gemma's rule; which ones does not change the count)
    out["layer_types"] = ["full_attention" if (shape[i] == glob if glob != local else (
        (i + 1) % 6 == 0 or i == layers - 1)) else "sliding_attention" for i in range(layers)]
    return out


GEMMA3N = MappingProxyType({"embedding_length": "hidden_size", "block_count": "num_hidden_layers",
                            "attention.head_count": "num_attention_heads",
                            "attention.shared_kv_layers": "num_kv_shared_layers"})


def gemma3n(meta: Mapping, shapes: Mapping) -> dict:
    """Gemma 3n's widths from its tensors: heads (attn_q, attn_k), the feed-forward (ffn_up),
    the per-layer inputs (per_layer_token_embd: its rows, and L × its width), AltUp's inputs
    (the stacked altup_proj, one fewer), LAuReL's rank (laurel_l)"""
    layers, heads = meta["block_count"], meta["attention.head_count"]
    head = shapes["blk.0.attn_q.weight"][0] // heads
    per_layer = shapes["per_layer_token_embd.weight"]
    return {"head_dim": head, "num_key_value_heads": shapes["blk.0.attn_k.weight"][0] // head,
            "intermediate_size": shapes["blk.0.ffn_up.weight"][0],
            "vocab_size_per_layer_input": per_layer[0],
            "hidden_size_per_layer_input": per_layer[1] // layers,
            "altup_num_inputs": shapes["altup_proj.weight"][0] + 1,
            "laurel_rank": shapes["blk.0.laurel_l.weight"][0],
            "altup_correct_scale": "blk.0.altup_correct_scale.weight" in shapes,
            "attention_bias": "blk.0.attn_q.bias" in shapes}
