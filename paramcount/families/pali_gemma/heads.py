"""PaliGemma's further transformers classes (:mod:`paramcount.model.heads`)."""

from paramcount.model.heads import BASE
from paramcount.model.heads import DECODER
from paramcount.model.heads import standard

CLASSES = {"pali_gemma": standard("PaliGemma", BASE, heads=DECODER)}
