"""Whisper's checkpoints: safetensors only; whisper.cpp, not llama.cpp, converts it."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import NO_ARCH

NO_GGUF = {"whisper": NO_ARCH + " (whisper.cpp keeps its own format)"}
