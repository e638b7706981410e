"""What the KerasHub families of BERT's and GPT-2's lineage share, declared once (issue 29 §3).

Learned positions (v, n, d_e, M, d_f, L) and KerasHub's attention: each head floored to d_e // M,
biases on all four projections (:func:`paramcount.families._lineages.biased_floored_heads`). A
family (BERT, DistilBERT, RoBERTa, GPT-2) names only what differs: its model's name in the whys,
its presets, examples and table, and each architecture's own fields.
"""

from __future__ import annotations

from functools import partial

from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import n
from paramcount.core.symbols import v
from paramcount.families._lineages import biased_floored_heads
from paramcount.model.registry import Architecture

__all__ = ["learned_positions_family"]


def learned_positions_family(model: str, **fields) -> partial:
    """The settings a family's architectures share (each call adds or overrides the rest): the
    hyperparameters of learned positions, ``model``'s biased floored heads, KerasHub's origin, and
    the family's ``fields``."""
    return partial(Architecture, required=(v, n, d_e, M, d_f, L), restrictions=biased_floored_heads(model),
                   family="keras_hub", **fields)
