"""OLMo 2's and OLMoE's checkpoints: GGUF ``olmo2`` (OLMo 3 converts as it too) and ``olmoe``."""

from __future__ import annotations

from types import MappingProxyType

from paramcount.model.checkpoint_tables import COMMON
from paramcount.model.checkpoint_tables import EXPERTS
from paramcount.model.checkpoint_tables import GGUFTable

GGUF = {"olmo2": ("olmo2",), "olmoe": ("olmoe",)}
GGUF_TABLES = {"olmo2": GGUFTable("olmo2", "Olmo2ForCausalLM"),
               "olmoe": GGUFTable("olmoe", "OlmoeForCausalLM", fuse=EXPERTS, config=MappingProxyType(
                   {**COMMON, "expert_count": "num_experts"}))}
