"""XLM-RoBERTa's checkpoints: GGUF as ``bert`` (BERT's table, its SentencePiece vocabulary
saying XLM-RoBERTa); llama.cpp's converter takes no XLMRobertaForMaskedLM."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import NOT_REGISTERED

GGUF = {"xlm_roberta": ("bert",)}
NO_GGUF = {"xlm_roberta_masked_lm": NOT_REGISTERED.format("XLMRobertaForMaskedLM")}
