"""Gemma's further transformers classes (:mod:`paramcount.model.heads`): Gemma's own and
those of its Gemma 2 variant (the architecture's second transformers class)."""

from paramcount.model.heads import BASE
from paramcount.model.heads import DECODER
from paramcount.model.heads import SEQUENCE
from paramcount.model.heads import TOKEN
from paramcount.model.heads import standard

CLASSES = {"gemma": (standard("Gemma", BASE, SEQUENCE, TOKEN, heads=DECODER),
                     standard("Gemma2", BASE, SEQUENCE, TOKEN, heads=DECODER, variant=1))}
