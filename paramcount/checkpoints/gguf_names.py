"""The third name table: GGUF tensor names (llama.cpp's ``convert_hf_to_gguf.py``) → the
transformers names the families already declare, per GGUF architecture, and the transformers
config its metadata gives. A GGUF tensor is then attributed exactly as a safetensors one.

A table is declared per ``general.architecture`` llama.cpp writes. ``names``: (GGUF regex,
transformers template); ``fuse``: pieces llama.cpp stores apart that transformers fuses (an MoE
layer's ``ffn_gate_exps`` and ``ffn_up_exps``, one ``gate_up_proj`` concatenated along axis 1);
``config``: the metadata keys (under the architecture's prefix) → transformers config keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["TABLES", "GGUFTable"]

_BLK = r"blk\.(\d+)\."
_L = r"model.layers.\1."

# The Llama lineage's block, as llama.cpp names it (LLM_ARCH_LLAMA and its kin).
_LLAMA_BLOCK: tuple[tuple[str, str], ...] = (
    (r"^token_embd\.weight$", "model.embed_tokens.weight"),
    (r"^output_norm\.weight$", "model.norm.weight"),
    (r"^output\.weight$", "lm_head.weight"),
    (_BLK + r"attn_norm\.weight$", _L + "input_layernorm.weight"),
    (_BLK + r"attn_q\.(weight|bias)$", _L + r"self_attn.q_proj.\2"),
    (_BLK + r"attn_k\.(weight|bias)$", _L + r"self_attn.k_proj.\2"),
    (_BLK + r"attn_v\.(weight|bias)$", _L + r"self_attn.v_proj.\2"),
    (_BLK + r"attn_output\.(weight|bias)$", _L + r"self_attn.o_proj.\2"),
    (_BLK + r"ffn_gate\.weight$", _L + "mlp.gate_proj.weight"),
    (_BLK + r"ffn_up\.weight$", _L + "mlp.up_proj.weight"),
    (_BLK + r"ffn_down\.weight$", _L + "mlp.down_proj.weight"),
    # a mixture of experts (Mixtral converts as "llama" with an expert_count)
    (_BLK + r"ffn_gate_inp\.weight$", _L + "mlp.gate.weight"),
    (_BLK + r"ffn_gate_exps\.weight$", _L + "mlp.experts.gate_proj"),
    (_BLK + r"ffn_up_exps\.weight$", _L + "mlp.experts.up_proj"),
    (_BLK + r"ffn_down_exps\.weight$", _L + "mlp.experts.down_proj"),
)
_LLAMA_NORM = ((_BLK + r"ffn_norm\.weight$", _L + "post_attention_layernorm.weight"),)
_QK_NORM = ((_BLK + r"attn_q_norm\.weight$", _L + "self_attn.q_norm.weight"),
            (_BLK + r"attn_k_norm\.weight$", _L + "self_attn.k_norm.weight"))
# Gemma 2's and Gemma 3's four block norms: ffn_norm is the one before the feed-forward there.
_GEMMA2_NORMS = ((_BLK + r"post_attention_norm\.weight$", _L + "post_attention_layernorm.weight"),
                 (_BLK + r"ffn_norm\.weight$", _L + "pre_feedforward_layernorm.weight"),
                 (_BLK + r"post_ffw_norm\.weight$", _L + "post_feedforward_layernorm.weight"))
# Qwen MoE's shared expert and its gate (Qwen 1.5 / 2 MoE).
_SHARED = ((_BLK + r"ffn_gate_inp_shexp\.weight$", _L + "mlp.shared_expert_gate.weight"),
           (_BLK + r"ffn_gate_shexp\.weight$", _L + "mlp.shared_expert.gate_proj.weight"),
           (_BLK + r"ffn_up_shexp\.weight$", _L + "mlp.shared_expert.up_proj.weight"),
           (_BLK + r"ffn_down_shexp\.weight$", _L + "mlp.shared_expert.down_proj.weight"))
# Phi-3 fuses q, k and v, and gate and up, as transformers does: the names map one to one.
_PHI3_FUSED = ((_BLK + r"attn_qkv\.weight$", _L + "self_attn.qkv_proj.weight"),
               (_BLK + r"ffn_up\.weight$", _L + "mlp.gate_up_proj.weight"))
_EXPERTS = ((r"mlp.experts.gate_proj", r"mlp.experts.up_proj", r"mlp.experts.gate_up_proj", 1),)

_COMMON = MappingProxyType({"embedding_length": "hidden_size", "feed_forward_length": "intermediate_size",
           "block_count": "num_hidden_layers", "attention.head_count": "num_attention_heads",
           "attention.head_count_kv": "num_key_value_heads", "attention.key_length": "head_dim",
           "expert_count": "num_local_experts", "expert_used_count": "num_experts_per_tok"})


_QWEN_MOE = MappingProxyType({
    **_COMMON, "expert_count": "num_experts",
    "expert_feed_forward_length": "moe_intermediate_size",
    "expert_shared_feed_forward_length": "shared_expert_intermediate_size"})


@dataclass(frozen=True)
class GGUFTable:
    """How one GGUF architecture's names and metadata read as transformers'."""

    model_type: str
    hf_class: str
    names: tuple[tuple[str, str], ...]
    fuse: tuple[tuple[str, str, str, int], ...] = ()
    config: Mapping[str, str] = field(default_factory=lambda: _COMMON)
    # model_type and class when the metadata has an expert_count (Mixtral converts as "llama")
    moe: tuple[str, str] | None = None


TABLES: dict[str, GGUFTable] = {
    "llama": GGUFTable("llama", "LlamaForCausalLM", _LLAMA_BLOCK + _LLAMA_NORM, _EXPERTS,
                       moe=("mixtral", "MixtralForCausalLM")),
    "gemma": GGUFTable("gemma", "GemmaForCausalLM", _LLAMA_BLOCK + _LLAMA_NORM),
    "gemma2": GGUFTable("gemma2", "Gemma2ForCausalLM", _GEMMA2_NORMS + _LLAMA_BLOCK),
    "gemma3": GGUFTable("gemma3_text", "Gemma3ForCausalLM",
                        _GEMMA2_NORMS + _QK_NORM + _LLAMA_BLOCK),
    "phi3": GGUFTable("phi3", "Phi3ForCausalLM", _PHI3_FUSED + _LLAMA_BLOCK + _LLAMA_NORM),
    "qwen2": GGUFTable("qwen2", "Qwen2ForCausalLM", _LLAMA_BLOCK + _LLAMA_NORM),
    "qwen3": GGUFTable("qwen3", "Qwen3ForCausalLM", _LLAMA_BLOCK + _LLAMA_NORM + _QK_NORM),
    "qwen2moe": GGUFTable("qwen2_moe", "Qwen2MoeForCausalLM",
                          _SHARED + _LLAMA_BLOCK + _LLAMA_NORM, _EXPERTS, _QWEN_MOE),
    "qwen3moe": GGUFTable("qwen3_moe", "Qwen3MoeForCausalLM",
                          _LLAMA_BLOCK + _LLAMA_NORM + _QK_NORM, _EXPERTS, _QWEN_MOE),
}
