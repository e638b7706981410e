"""DistilBERT's checkpoints: llama.cpp converts both ids as ``bert`` (BERT's table tells a
DistilBERT file by its missing token-type table)."""

from __future__ import annotations

GGUF = {"distil_bert": ("bert",), "distil_bert_masked_lm": ("bert",)}
