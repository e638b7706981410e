"""Moonshine's checkpoints: safetensors only; llama.cpp writes no GGUF of it."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import NO_ARCH

NO_GGUF = {"moonshine": NO_ARCH}
