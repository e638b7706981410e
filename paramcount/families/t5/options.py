"""T5's options only transformers builds (:mod:`paramcount.model.options`): eight (or any
number of) relative-position buckets."""

from paramcount.core.symbols import n_b
from paramcount.model.mapping import Field
from paramcount.model.options import Option

OPTIONS = {"t5": (Option(
    "buckets", "relative_attention_num_buckets", None,
    fields=(Field("n_b", hf="relative_attention_num_buckets"),), frees={n_b: 32},
    example={"n_b": 8}),)}
