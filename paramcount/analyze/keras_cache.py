"""KerasHub's generation cache against the KV-cache tree: what a KerasHub causal LM should
allocate for B prompts of T tokens (:func:`expected`, from the tree and the family's declared
difference, :mod:`paramcount.model.keras_cache`) and what it does allocate (:func:`measured`,
``reference_models.keras_cache``, in a process that may hold Keras)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from math import prod

from paramcount.analyze import costs
from paramcount.core.errors import ParamcountError
from paramcount.model import frameworks, registry
from paramcount.model.cost import NO_WINDOW
from paramcount.model.keras_cache import declared
from paramcount.model.registry import Architecture
from paramcount.model.weights import Named

__all__ = ["WINDOW", "Row", "expected", "measured", "preset_rows"]

WINDOW = ("KerasHub's cache keeps every position, where transformers' keeps the last w − 1 of a "
          "sliding window (KerasHub masks the window in attention)")


def expected(arch: Architecture, hp: Mapping[str, int], context: int, batch: int,
             config: Mapping[str, int | None] | None = None) -> tuple[int, str]:
    """The elements KerasHub's causal LM of ``arch`` allocates as its generation cache at resolved
    ``hp`` for ``batch`` prompts of ``context`` tokens, and the difference from transformers'
    cache that makes it so ("" where there is none): the KV-cache tree with no window, at the
    positions the family declares, or the count it declares. ``config``: the window as a
    preset's config gives it (transformers' class default otherwise)."""
    values = {**hp, **frameworks.cost_values(arch, hp, config), "T": context, "B": batch}
    window = values.get("w", NO_WINDOW) < context
    values["w"] = NO_WINDOW
    said = declared(arch.id)  # evaluated exactly, as every formula is (Architecture.evaluate)
    if said is not None and said.elements is not None:
        return arch.evaluate(said.elements, values, "KerasHub's cache"), said.why
    if said is not None and said.context is not None:
        values["T"] = arch.evaluate(said.context, values, "KerasHub's cached positions")
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


@dataclass(frozen=True)
class Row:
    """One preset's generation caches at T tokens, B = 1: KerasHub's (measured), what it should
    be (:func:`expected`), transformers' (the KV-cache tree with the preset's window; None where
    its config gives none), and the difference between the two frameworks ("" where none)."""

    arch: str
    preset: str
    context: int
    keras: int
    expected: int
    transformers: int | None
    why: str


def preset_rows(arch_ids: Iterable[str], context: int) -> list[Row]:
    """Each of ``arch_ids`` that KerasHub has a causal LM over, with a KV-cache tree: its first
    preset at ``context`` tokens (at most a learned position table's rows)."""
    out = []
    for aid in arch_ids:
        arch = registry.get(aid)
        presets = list(arch.presets_table().values())
        if arch.transformers is None or not presets or costs.formulated(arch, "kv") is not None:
            continue
        preset = presets[0]
        hp = arch.resolve(dict(preset.hparams))
        t = min(context, hp.get("n", context))
        got = measured(aid, hp, t, 1)
        if got is None:
            continue
        config = dict(preset.config)
        want, why = expected(arch, hp, t, 1, config)
        try:
            theirs: int | None = costs.value(arch, "kv", hp, t, 1, config)
        except ParamcountError:
            theirs = None
        out.append(Row(aid, preset.name, t, got, want, theirs, why))
    return out
