"""GPT-2's options only transformers builds (:mod:`paramcount.model.options`)."""

from paramcount.model.options import untied

OPTIONS = {
    "gpt2_causal_lm": (untied("GPT2LMHeadModel honours tie_word_embeddings"),),
}
