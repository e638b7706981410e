"""Mistral's checkpoints: llama.cpp converts it as Llama (the GGUF table is that family's)."""

from __future__ import annotations

GGUF = {"mistral": ("llama",)}
