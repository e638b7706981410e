"""OPT's options only transformers builds (:mod:`paramcount.model.options`)."""

from paramcount.model.options import untied

OPTIONS = {
    "opt": (untied("OPTForCausalLM honours tie_word_embeddings", classes=("OPTForCausalLM",)),),
}
