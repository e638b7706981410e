"""The time-series transformer of Zerveas et al. 2021 (TST; the paper's time-series section).

Each of the n steps of a multivariate series, d_x values, is projected linearly to d_e; learned
positions (n × d_e) are added; L post-norm encoder blocks follow (self-attention, feed-forward,
each with add & norm); then an output layer: for classification or regression, one linear map from
all n final vectors concatenated (n·d_e) to d_y outputs; for the masked-value pretraining
(``pretrain = 1``), a linear map d_e → d_x at every step that reconstructs the input.

Option ``bn``: Zerveas et al. use batch normalization in place of layer normalization (section
3.1); a batch norm also keeps a moving mean and variance, counted apart as non-trainable.
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.restrictions import Fixed
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import bn
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_x
from paramcount.core.symbols import d_y
from paramcount.core.symbols import n
from paramcount.core.symbols import pretrain
from paramcount.core.symbols import zeta
from paramcount.families._lineages import HEADS_FIT_WIDTH
from paramcount.model.components import attention
from paramcount.model.components import dense
from paramcount.model.components import feed_forward
from paramcount.model.components.basic import EVEN_HEADS
from paramcount.model.registry import Architecture
from paramcount.model.registry import register

IDS = ("tst",)  # the ids this folder registers


def _norm(name: str):
    return group(
        name,
        leaf("scale_shift", 2 * d_e, match="gamma|beta", kind="norm", note="γ and β, d_e each"),
        leaf("running_stats", bn * 2 * d_e, match="moving_mean|moving_variance", kind="norm", trainable=False,
             note="batch norm's moving mean and variance, d_e each: updated, not trained; "
                  "0 for layer norm"),
        match=name,
    )


register(Architecture(
    id="tst",
    formula=group(
        "tst",
        group(
            "embeddings",
            dense("input_projection", d_x, d_e, match="input_projection", kind="projection",
                  note="W_p·x_t + b_p: d_x features → d_e, shared by all steps"),
            leaf("position", n * d_e, match="position_embedding", kind="position",
                 note="learned positions, one d_e vector per step"),
        ),
        group(
            "blocks",
            attention(match="self_attention"),
            _norm("norm_1"),
            feed_forward(names=("ffn_up", "ffn_down")),
            _norm("norm_2"),
            times=L,
            match=r"encoder_layer_\d+",
        ),
        group(
            "head",
            leaf("supervised", (1 - pretrain) * (n * d_e * d_y + d_y), match="output_head", kind="head",
                 note="W_o over the n·d_e concatenated final vectors → d_y, with bias; "
                      "0 when pretrain = 1"),
            leaf("reconstruction", pretrain * (d_e * d_x + d_x), match="reconstruction_head", kind="head",
                 note="d_e → d_x at every step, with bias (masked-value pretraining); "
                      "0 when pretrain = 0"),
        ),
    ),
    required=(d_x, n, d_e, M, d_f, L),
    optional={d_y: 1, bn: 1, pretrain: 0},
    restrictions=(
        *Fixed.each(EVEN_HEADS,
            why="the reference's keras.layers.MultiHeadAttention takes key_dim = d_e // M (floored), keys and "
                "values alike"),
        Fixed(zeta, 1, why="keras.layers.MultiHeadAttention gives its projections biases (use_bias defaults to True)"),
        HEADS_FIT_WIDTH,
    ),
    reference="reference_models.tst:tst",
    family="paper",
))
