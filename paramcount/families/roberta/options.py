"""RoBERTa's options only transformers builds (:mod:`paramcount.model.options`)."""

from paramcount.model.options import TOKEN_TYPES

OPTIONS = {"roberta": (TOKEN_TYPES,), "roberta_masked_lm": (TOKEN_TYPES,)}
