"""RoBERTa's checkpoints: GGUF as ``bert`` (BERT's table, its BPE vocabulary saying RoBERTa);
llama.cpp's converter takes no RobertaForMaskedLM."""

from __future__ import annotations

from paramcount.model.checkpoint_tables import NOT_REGISTERED

GGUF = {"roberta": ("bert",)}
NO_GGUF = {"roberta_masked_lm": NOT_REGISTERED.format("RobertaForMaskedLM")}
