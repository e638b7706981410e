"""The feedforward neural LM of Bengio et al. 2003 (the paper's FFNN LM section).

The n previous tokens are embedded (one shared v × d_e table), concatenated into an n·d_e vector,
passed through L hidden layers of d_h tanh units (the paper: L = 1) and a Dense(v) softmax layer.
Option ``direct``: Bengio's direct connections from the concatenated embeddings to the output
(y = b + W·x + U·tanh(d + H·x)), an n·d_e × v matrix without a bias of its own.
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.formula import zero
from paramcount.core.symbols import L
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_h
from paramcount.core.symbols import direct
from paramcount.core.symbols import n
from paramcount.core.symbols import v
from paramcount.model.components import dense
from paramcount.model.components import embedding
from paramcount.model.registry import Architecture
from paramcount.model.registry import register

IDS = ("ffnn_lm",)  # the ids this folder registers


register(Architecture(
    id="ffnn_lm",
    formula=group(
        "ffnn_lm",
        group("embeddings", embedding("token", v, match="embedding",
                                      note="one v × d_e table shared by the n context positions")),
        zero("concatenation", "the n embeddings side by side: n·d_e inputs, no weights",
             kind="embedding"),
        group(
            "hidden",
            dense("layer_1", n * d_e, d_h, match="hidden_0"),
            leaf("layers_2_to_L", d_h * d_h + d_h, times=L - 1, match=r"hidden_[1-9]\d*",
                 note="d_h → d_h tanh layers with bias; none when L = 1"),
            kind="feed-forward",
        ),
        dense("head", d_h, v, match="head", kind="head", note="Dense(d_h → v) with bias, before the softmax"),
        leaf("direct", direct * n * d_e * v, match="direct", kind="head",
             note="Bengio's optional direct connections W (n·d_e → v), no bias; 0 when direct = 0"),
    ),
    required=(v, n, d_e, d_h),
    optional={L: 1, direct: 0},
    reference="reference_models.ffnn_lm:ffnn_lm",
    family="paper",
))
