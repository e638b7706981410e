"""What a reference model is reduced to: its weights (path, size, trainability, shape).

Both sides import this: the reference builders (``reference_models``, which turn
hyperparameters into weights) and the analysis that attributes weights to the formula's leaves
(:mod:`paramcount.analyze.verify`, :mod:`paramcount.analyze.prove`). It imports nothing of either.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["Named", "Weight"]


@dataclass(frozen=True)
class Weight:
    """One weight of a reference model (a Keras variable, a PyTorch parameter or buffer)."""

    path: str
    size: int
    trainable: bool
    shape: tuple[int, ...]


@dataclass(frozen=True)
class Named:
    """A reference builder named by ``"module:function"``, with arguments bound before the
    hyperparameters: ``Named("reference_models.hf:weights", (arch_id,))(hp)`` is
    ``reference_models.hf.weights(arch_id, hp)``.

    Naming it imports nothing (an architecture declares a torch-side reference without importing
    torch), it pickles as its name (it travels to the worker process that may import its
    module), and a proof's key reads its module's source (:func:`paramcount.runtime.cache.builder_sources`).
    """

    target: str
    args: tuple = ()

    def __call__(self, hp: Mapping[str, int]):
        module, _, func = self.target.partition(":")
        return getattr(importlib.import_module(module), func)(*self.args, dict(hp))
