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
    title="Feedforward neural LM (Bengio et al. 2003): n context embeddings → L tanh layers → v",
    source="Bengio et al. 2003, JMLR 3, section 2; Saleh & Paquelet 2024 (FFNN LM)",
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
    counting="trainable weights: embedding table (counted once for the n positions), hidden "
             "layers, output layer, direct connections when present",
    examples={
        "tiny": dict(v=100, n=4, d_e=8, d_h=16),
        "odd_sizes": dict(v=97, n=3, d_e=7, d_h=11),
        "three_hidden": dict(v=53, n=5, d_e=6, d_h=9, L=3),
        "direct": dict(v=61, n=2, d_e=5, d_h=7, direct=1),
        "direct_two_hidden": dict(v=61, n=2, d_e=5, d_h=7, L=2, direct=1),
        "realistic_20k": dict(v=20000, n=5, d_e=100, d_h=500, direct=1),
    },
    family="paper",
))
