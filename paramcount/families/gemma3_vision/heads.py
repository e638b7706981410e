"""Gemma 3's vision-language classes (:mod:`paramcount.model.heads`)."""

from paramcount.model.heads import BASE
from paramcount.model.heads import DECODER
from paramcount.model.heads import SEQUENCE
from paramcount.model.heads import Classes

CLASSES = {"gemma3_vision": Classes(
    names={"Gemma3Model": BASE, "Gemma3ForSequenceClassification": SEQUENCE}, heads=DECODER)}
