"""KerasHub's generation cache against the KV-cache tree: what a KerasHub causal LM should
allocate for B prompts of T tokens (:func:`expected`, from the tree and the family's declared
difference, :mod:`paramcount.model.keras_cache`) and what it does allocate (:func:`measured`,
``reference_models.keras_cache``, in a process that may hold Keras)."""

from __future__ import annotations

from collections.abc import Mapping
from math import prod

from paramcount.analyze import costs
from paramcount.model import frameworks
from paramcount.model.cost import NO_WINDOW
from paramcount.model.keras_cache import declared
from paramcount.model.registry import Architecture
from paramcount.model.weights import Named

__all__ = ["WINDOW", "expected", "measured"]

WINDOW = ("KerasHub's cache keeps every position, where transformers' keeps the last w − 1 of a "
          "sliding window (KerasHub masks the window in attention)")


def expected(arch: Architecture, hp: Mapping[str, int], context: int, batch: int
             ) -> tuple[int, str]:
    """The elements KerasHub's causal LM of ``arch`` allocates as its generation cache at resolved
    ``hp`` for ``batch`` prompts of ``context`` tokens, and the difference from transformers'
    cache that makes it so ("" where there is none): the KV-cache tree with no window, at the
    positions the family declares, or the count it declares."""
    values = {**hp, **frameworks.cost_values(arch, hp), "T": context, "B": batch}
    window = values.get("w", NO_WINDOW) < context
    values["w"] = NO_WINDOW
    said = declared(arch.id)
    symbols = arch.values(values)
    if said is not None and said.elements is not None:
        return int(said.elements.subs(symbols)), said.why
    if said is not None and said.context is not None:
        values["T"] = int(said.context.subs(symbols))
    tree, _ = costs.tree(arch, "kv", hp)
    why = said.why if said is not None else WINDOW if window else ""
    return tree.evaluate(arch.values(values)), why


def measured(arch_id: str, hp: Mapping[str, int], context: int, batch: int) -> int | None:
    """The elements KerasHub's causal LM of ``arch_id`` allocates (None where KerasHub has none),
    read in a process that may hold Keras."""
    from paramcount.runtime import isolate

    shapes = isolate.call("keras", Named("reference_models.keras_cache:cache_shapes", (arch_id,)),
                          {**hp, "T": context, "B": batch})
    return None if shapes is None else sum(prod(s) for s in shapes)
