"""Falcon's options only transformers builds (:mod:`paramcount.model.options`)."""

from paramcount.model.options import untied

OPTIONS = {
    "falcon": (untied("FalconForCausalLM honours tie_word_embeddings"),),
    "falcon_parallel": (untied("FalconForCausalLM honours tie_word_embeddings"),),
}
