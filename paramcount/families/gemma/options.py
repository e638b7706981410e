"""Gemma's options only transformers builds (:mod:`paramcount.model.options`)."""

from paramcount.model.options import untied

OPTIONS = {
    "gemma": (untied("Gemma(2)ForCausalLM honours tie_word_embeddings"),),
}
