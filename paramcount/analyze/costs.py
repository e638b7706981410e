"""Memory and compute, checked: each architecture's forward-FLOPs and KV-cache trees
(:mod:`paramcount.model.cost`) against what transformers' model does on the meta device.

A quantity is checked the way a parameter count is: :func:`quantity_arch` is the architecture as
transformers builds it with the quantity's tree for a formula, T and B among its hyperparameters,
and a reference that measures (``reference_models.hf:cost_weights``, in a torch worker: torch's
``FlopCounterMode`` per module, the cache's tensors per layer). :func:`check` compares one set
component by component with the verifier's own attribution, and the prover decides the tree for
all hyperparameters with the same oracle (:func:`paramcount.analyze.prove.prove`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING

from paramcount.core.errors import ParamcountError
from paramcount.core.symbols import B, T
from paramcount.model import cost
from paramcount.model.frameworks import for_framework
from paramcount.model.weights import Named

if TYPE_CHECKING:
    from paramcount.analyze.verify import Verification
    from paramcount.model.registry import Architecture

__all__ = ["QUANTITIES", "check", "quantity_arch", "tree"]

QUANTITIES = tuple(cost.QUANTITIES)


def tree(arch: Architecture, quantity: str, hparams: Mapping[str, int] | None = None):
    """The ``quantity`` tree of ``arch`` as transformers builds it (at ``hparams``' class), and
    the components whose cost is not formulated (ParamcountError when there is no transformers
    reference)."""
    built = for_framework(arch, "transformers", hparams)
    if quantity == "flops":
        return cost.forward_flops(built.formula)
    if quantity == "kv":
        return cost.kv_cache(built.formula), ()
    raise ParamcountError(f"unknown quantity {quantity!r}; known: {', '.join(QUANTITIES)}")


def quantity_arch(arch: Architecture, quantity: str,
                  hparams: Mapping[str, int] | None = None) -> Architecture:
    """``arch`` as transformers builds it, its formula the ``quantity`` tree, T and B required,
    and a reference that measures the quantity (so ``verify.compare`` and ``prove`` take it as
    they take a parameter count)."""
    built = for_framework(arch, "transformers", hparams)
    formula, _ = tree(arch, quantity, hparams)
    return dataclasses.replace(
        built, formula=formula, required=(*built.required, T, B),
        reference=Named("reference_models.hf:cost_weights", (arch.id, quantity)),
        frameworks=("transformers",), keras_hub_metadata=False)


def check(arch: Architecture, hparams: Mapping[str, int], context: int, batch: int
          ) -> dict[str, Verification]:
    """Each quantity's tree against the measurement of a forward of ``batch`` sequences of
    ``context`` tokens at resolved ``hparams``, component by component (in a torch worker)."""
    from paramcount.analyze.verify import compare
    from paramcount.runtime import isolate

    hp = {**dict(hparams), "T": context, "B": batch}
    measured = isolate.call("torch", Named("reference_models.hf:costs", (arch.id,)), hp)
    out = {}
    for q in QUANTITIES:
        qa = quantity_arch(arch, q, hparams)
        out[q] = compare(qa, hp, measured[q], name=f"T={context}, B={batch}",
                         framework="transformers")
    return out
