"""Gemma 3's options only transformers builds (:mod:`paramcount.model.options`)."""

from paramcount.model.options import untied

OPTIONS = {
    "gemma3": (untied("Gemma3ForCausalLM honours tie_word_embeddings"),),
}
