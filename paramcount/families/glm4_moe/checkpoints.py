"""GLM-4.5's checkpoints: GGUF ``glm4moe``, spelled as DeepSeek's (routed and shared experts,
dense leading blocks, the router's correction bias) with its multi-token-prediction layer."""

from __future__ import annotations

from types import MappingProxyType

from paramcount.model.checkpoint_tables import EXP_PROBS
from paramcount.model.checkpoint_tables import EXPERTS
from paramcount.model.checkpoint_tables import MOE_LEADING_DENSE
from paramcount.model.checkpoint_tables import GGUFTable

_CONFIG = MappingProxyType({**MOE_LEADING_DENSE,
                            "nextn_predict_layers": "num_nextn_predict_layers"})

GGUF = {"glm4_moe": ("glm4moe",)}
GGUF_TABLES = {"glm4moe": GGUFTable("glm4_moe", "Glm4MoeForCausalLM", EXP_PROBS, EXPERTS,
                                    config=_CONFIG,
                                    present=(("blk.0.attn_q.bias", "attention_bias"),
                                             ("blk.0.attn_q_norm.weight", "use_qk_norm")))}
