"""Gemma 3 vision-language checkpoints: safetensors; llama.cpp splits its GGUF in two
files (the text model, the vision tower's mmproj), which no table reads."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import MMPROJ

NO_GGUF = {"gemma3_vision": MMPROJ}
