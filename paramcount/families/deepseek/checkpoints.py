"""DeepSeek's checkpoints. V2 and V3 convert as GGUF ``deepseek2``: its MLA ranks and dense
leading blocks are spelled otherwise in the metadata than in the config (declared key by key),
its ``kv_b_proj`` stored split (``attn_k_b``, ``attn_v_b``), its router's correction bias renamed
by the converter. The experts are published one tensor each, and DeepSeek-V3's header (FP8
with block scales, its multi-token-prediction module as layer 61) is one the tests write."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from paramcount.model.checkpoint_tables import EXP_PROBS
from paramcount.model.checkpoint_tables import EXPERTS
from paramcount.model.checkpoint_tables import MOE_LEADING_DENSE
from paramcount.model.checkpoint_tables import PER_EXPERT
from paramcount.model.checkpoint_tables import GGUFTable

# MLA's ranks and widths, routed and shared experts, dense leading blocks (its key_length is
# MLA's absorbed kv_lora_rank + rope width: not a head width)
_CONFIG = MappingProxyType({
    **{k: v for k, v in MOE_LEADING_DENSE.items() if k not in ("attention.key_length",
                                                               "attention.head_count_kv")},
    "attention.q_lora_rank": "q_lora_rank", "attention.kv_lora_rank": "kv_lora_rank",
    "rope.dimension_count": "qk_rope_head_dim", "attention.value_length_mla": "v_head_dim"})
_MLA = (("attn_k_b.weight", "attn_v_b.weight", "model.layers.{bid}.self_attn.kv_b_proj.weight",
         None),)


def _version(meta: Mapping, shapes: Mapping) -> dict:
    """DeepSeek-V2 or V3 (V3's router has a score-correction bias: exp_probs_b), and the
    no-rope query width: MLA's key width less its rope part (an older converter's key_length)"""
    key = meta.get("attention.key_length_mla", meta.get("attention.key_length"))
    v3 = any(n.endswith("exp_probs_b.bias") for n in shapes)
    return {"qk_nope_head_dim": key - meta["rope.dimension_count"],
            "model_type": "deepseek_v3" if v3 else "deepseek_v2",
            "architectures": ["DeepseekV3ForCausalLM" if v3 else "DeepseekV2ForCausalLM"],
            **({} if "attention.q_lora_rank" in meta else {"q_lora_rank": None})}


GGUF = {"deepseek_v2": ("deepseek2",), "deepseek_v3": ("deepseek2",)}
NO_GGUF = {
    "deepseek_v32": "llama.cpp has no DeepSeek-V3.2 architecture: the gguf package's deepseek2 "
                    "names no indexer tensor (DeepSeek Sparse Attention's indexer is named only "
                    "under GLM's glm-dsa), so a V3.2 GGUF cannot store the model this formula counts",
}
GGUF_TABLES = {"deepseek2": GGUFTable("deepseek_v3", "DeepseekV3ForCausalLM", EXP_PROBS,
                                      EXPERTS + _MLA, config=_CONFIG, derive=_version)}
LAYOUTS = {"deepseek_v2": PER_EXPERT, "deepseek_v3": PER_EXPERT}
# DeepSeek-V3 stores its multi-token-prediction module as layer 61 (the config's model stops
# at 61 layers) and FP8 weights with a 128 × 128-block scale beside each: the Hub's 685B.
PUBLISHED = {
    "deepseek-v3.json": ("deepseek-ai/DeepSeek-V3", 684_531_386_000,
                         "FP8 with block scales, one tensor per expert, MTP module as layer 61",
                         (("FP8 block scales", 41_540_496),
                          ("multi-token-prediction layers", 13_463_426_304))),
}
