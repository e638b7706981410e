"""KerasHub's generation cache beside the KV-cache tree.

A KerasHub causal LM allocates its cache for generation in ``_build_cache`` (read allocation-free
by ``reference_models.keras_cache``). It is the KV-cache tree of :mod:`paramcount.model.cost`
(transformers' cache) with one convention of its own: a sliding window masks attention and keeps
every position, so the tree is taken with no window. Where a family's KerasHub cache is another
computation, its folder declares it (``families/<family>/caches.py``: ``KERAS_CACHE``, by id) as a
:class:`KerasCache`: the positions it caches in place of T, or its whole count, and why. The
declarations several families share are here, named for what they are. Nothing here imports a
framework or a family.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from paramcount.core.symbols import B, H_lk, H_lv, K_conv, L, M_kv, T, d_k, d_lk, d_lv
from paramcount.model import discovery

__all__ = ["EVERY_LAYER_BOTH", "KerasCache", "declared"]


@dataclass(frozen=True)
class KerasCache:
    """How KerasHub's cache of one architecture differs from its KV-cache tree: ``context``, the
    positions it caches in place of T (the tree evaluated there), or ``elements``, its whole
    count; ``why`` says what KerasHub does."""

    why: str
    context: sympy.Expr | None = None
    elements: sympy.Expr | None = None


# A hybrid of full-attention and gated-DeltaNet layers (transformers caches keys and values in the
# first kind, a convolution's window and a recurrent state in the second): KerasHub allocates all
# three for every one of its L layers
EVERY_LAYER_BOTH = KerasCache(
    why="KerasHub allocates every layer's keys and values, convolution window and recurrent "
        "state, whichever kind the layer is",
    elements=B * L * (2 * T * M_kv * d_k + (2 * H_lk * d_lk + H_lv * d_lv) * (K_conv - 1)
                      + H_lv * d_lk * d_lv))


def declared(arch_id: str) -> KerasCache | None:
    """What ``arch_id``'s family declares of its KerasHub cache; None where it is the tree."""
    return discovery.family_table(discovery.family_of(arch_id), "caches", "KERAS_CACHE").get(arch_id)
