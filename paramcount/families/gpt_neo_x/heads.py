"""GPT-NeoX's further transformers classes (:mod:`paramcount.model.heads`)."""

from paramcount.model.heads import ALL
from paramcount.model.heads import GPT
from paramcount.model.heads import standard

CLASSES = {"gpt_neo_x": standard("GPTNeoX", *ALL, heads=GPT, base="gpt_neox")}
