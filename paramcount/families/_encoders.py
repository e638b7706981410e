"""What the KerasHub families of BERT's and GPT-2's lineage share, declared once (issue 29 §3).

Learned positions (v, n, d_e, M, d_f, L) and KerasHub's attention: each head floored to d_e // M,
biases on all four projections (:func:`paramcount.families._lineages.biased_floored_heads`). A
family (BERT, DistilBERT, RoBERTa, GPT-2) names only what differs: its model's name in the whys,
its presets, examples and table, and each architecture's own fields.
"""

from __future__ import annotations

from functools import partial

from paramcount.core.formula import Term
from paramcount.core.formula import group
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import n
from paramcount.core.symbols import v
from paramcount.families._lineages import biased_floored_heads
from paramcount.model.registry import Architecture

__all__ = ["learned_positions_backbone", "learned_positions_family"]


def learned_positions_family(model: str, **fields) -> partial:
    """The settings a family's architectures share (each call adds or overrides the rest): the
    hyperparameters of learned positions, ``model``'s biased floored heads, KerasHub's origin, and
    the family's ``fields``."""
    return partial(Architecture, required=(v, n, d_e, M, d_f, L), restrictions=biased_floored_heads(model),
                   family="keras_hub", **fields)


def learned_positions_backbone(family: partial, arch_id: str, *parts: Term,
                               **fields) -> Architecture:
    """The KerasHub backbone ``arch_id`` of a ``family`` (:func:`learned_positions_family`): its
    tree the group ``arch_id`` of ``parts``, checked against ``reference_models.<id>:backbone`` and
    counted by KerasHub's metadata; ``fields``, the rest (transformers' names)."""
    return family(id=arch_id, formula=group(arch_id, *parts), keras_hub_metadata=True,
                  reference=f"reference_models.{arch_id}:backbone", **fields)
