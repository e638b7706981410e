"""gpt-oss's further transformers classes (:mod:`paramcount.model.heads`)."""

from paramcount.model.heads import BASE
from paramcount.model.heads import DECODER
from paramcount.model.heads import SEQUENCE
from paramcount.model.heads import TOKEN
from paramcount.model.heads import standard

CLASSES = {"gpt_oss": standard("GptOss", BASE, SEQUENCE, TOKEN, heads=DECODER)}
