"""XLM-RoBERTa's options only transformers builds (:mod:`paramcount.model.options`)."""

from paramcount.model.options import TOKEN_TYPES

OPTIONS = {"xlm_roberta": (TOKEN_TYPES,), "xlm_roberta_masked_lm": (TOKEN_TYPES,)}
