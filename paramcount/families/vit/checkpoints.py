"""ViT's checkpoints: safetensors only (an image encoder, which llama.cpp does not convert)."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import NO_ARCH

NO_GGUF = {"vit": NO_ARCH + "; an image encoder"}
