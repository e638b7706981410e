"""T5Gemma's further transformers classes (:mod:`paramcount.model.heads`)."""

from collections.abc import Mapping

from paramcount.core.formula import group
from paramcount.core.symbols import d_e_dec
from paramcount.core.symbols import d_y
from paramcount.model.components.basic import dense
from paramcount.model.heads import BASE
from paramcount.model.heads import SEQUENCE
from paramcount.model.heads import TOKEN
from paramcount.model.heads import Head
from paramcount.model.heads import standard
from paramcount.model.mapping import Require

# The decoder's output scored (score.out_proj, with a bias), encoder and decoder both built only
# with is_encoder_decoder (else the encoder alone, which paramcount does not count).
_ENC_DEC = (Require("is_encoder_decoder", (True,), "without it T5Gemma's classifiers build the "
                    "encoder alone, which paramcount's T5Gemma does not count"),)
_SCORE = Head(
    (group("score", dense("out_proj", d_e_dec, d_y), kind="head"),),
    {"score": "score", "score.out_proj": "out_proj"},
    "the class scores of the decoder's output: score.out_proj, d_e_dec → d_y", requires=_ENC_DEC)
T5GEMMA: Mapping[str, Head] = {SEQUENCE: _SCORE, TOKEN: _SCORE}

CLASSES = {"t5gemma": standard("T5Gemma", BASE, SEQUENCE, TOKEN, heads=T5GEMMA)}
