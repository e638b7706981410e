"""OLMo 3's checkpoints: llama.cpp converts it as OLMo 2 (the GGUF table is that family's)."""

from __future__ import annotations

GGUF = {"olmo3": ("olmo2",)}
