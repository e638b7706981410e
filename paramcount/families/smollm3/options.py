"""SmolLM3's options only transformers builds (:mod:`paramcount.model.options`)."""

from paramcount.model.options import untied

OPTIONS = {
    "smollm3": (untied("SmolLM3ForCausalLM honours tie_word_embeddings"),),
}
