"""What one generated token costs a transformers reference: the FLOPs of a forward of one token per
sequence against the cache of ``T`` tokens that a forward of them left, per module, under torch's
``FlopCounterMode`` on the meta device (:mod:`paramcount.analyze.decode`).

The model is built as :func:`reference_models.hf_costs.costs` builds it (the window and other
cost fields set on its config, a router's experts gathered per token), and its FLOPs are
attributed as that function attributes a forward's, so the decode tree's patterns are the
forward tree's. This module is apart from :mod:`reference_models.hf_costs` because that module's
source keys every cost proof: the setup and the attribution stand here a second time until that
module next changes (then it takes a ``step`` and this module goes).
Imports torch and transformers: imported only in a torch worker.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping

import torch

from paramcount.core.errors import Refused
from paramcount.model.cost import NO_WINDOW
from paramcount.model.frameworks import cost_symbols, torch_path
from paramcount.model.weights import Weight
from reference_models.hf import build
from reference_models.hf_costs import gather_experts, measure

__all__ = ["decode", "decode_weights", "step"]


def decode_weights(arch, quantity: str, hp: Mapping[str, int]) -> list[Weight]:
    """The oracle of a decode check (``quantity`` is ``"decode"``): :func:`decode`."""
    return decode(arch, hp)


def decode(arch, hp: Mapping[str, int]) -> list[Weight]:
    """The FLOPs of one more token in each of ``hp["B"]`` sequences, after a forward of
    ``hp["T"]`` tokens filled the cache, of the transformers model of ``arch`` at the rest of
    ``hp``: each module's own count (its counted children's taken out) at ``<module>/weight`` for a
    module with a weight of its own, shared among stacked expert matrices in proportion to their
    sizes, else at ``<module>/scores`` (an attention's products of queries, keys and values),
    named as the parameter measurement names them. Refused where the class's experts run only in
    its own loop over the routed ones (the step would need real data)."""
    if isinstance(arch, str):
        from paramcount.model.registry import get

        arch = get(arch)
    ref = arch.transformers.pick(hp)
    symbols = cost_symbols(ref)
    extra: dict[str, object] = {k: x for k, x in ref.cost_config.items() if k not in symbols}
    for key, (sym, default) in symbols.items():
        given = hp.get(sym.name, default)
        extra[key] = None if given is None or given >= NO_WINDOW else given  # none: null
    skip = {"T", "B", *(sym.name for sym, _ in symbols.values())}
    model = build(arch, {k: x for k, x in hp.items() if k not in skip}, config=extra)
    if arch.formula.has_active and not ref.experts_on_meta:
        raise Refused(f"{arch.id}: its experts run only in its own loop over the routed ones")
    if arch.formula.has_active:  # (a class that cannot switch them may route data-free: Llama 4's)
        gather_experts(model)
    own = step(model, hp["B"], hp["T"])
    modules = dict(model.named_modules())
    out = [w for name, n in own.items() if n for w in _flop_weights(name, modules[name], n)]
    rename = getattr(arch.transformers, "rename", None)
    if rename is not None:
        import dataclasses

        out = [dataclasses.replace(x, path=rename(x.path, model.config)) for x in out]
    return out


def step(model, batch: int, context: int, cache=None) -> dict[str, int]:
    """Each module's own FLOPs (by name, ``""`` the model) in one forward of one token per
    sequence of ``model`` (on the meta device) against the cache a forward of ``batch`` ×
    ``context`` tokens returned (``cache``, where the caller made that forward already)."""
    with torch.device("meta"):
        new = torch.zeros((batch, 1), dtype=torch.long)
        if cache is None:
            _, cache = measure(model, torch.zeros((batch, context), dtype=torch.long))
    key = "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"
    return _own(model, lambda: model(input_ids=new, use_cache=True, **{key: cache}))


def _own(model, forward) -> dict[str, int]:
    """Each module's own FLOPs in ``forward()`` (its nearest counted ancestor's less its)."""
    from torch.utils.flop_counter import FlopCounterMode

    counter = FlopCounterMode(display=False)
    with counter, torch.no_grad():
        forward()
    totals = {name: sum(ops.values()) for name, ops in counter.get_flop_counts().items()}
    root = type(model).__name__
    counted = {name: int(totals[f"{root}.{name}" if name else root])
               for name, _ in model.named_modules() if (f"{root}.{name}" if name else root) in totals}
    own = dict(counted)
    for name, total in counted.items():
        parts = name.split(".") if name else []
        parent = next((p for p in (".".join(parts[:i]) for i in range(len(parts) - 1, -1, -1))
                       if p in counted and p != name), None)
        if parent is not None:
            own[parent] -= total
    return own


def _flop_weights(name: str, module, n: int) -> list[Weight]:
    """A module's own FLOPs ``n`` as pseudo-weights, at the paths the forward's measurement
    gives them (a recurrent mixer's step is not formulated: its module's count stays at
    ``scores``, which no leaf of a whole decode tree claims)."""
    at = f"{name}." if name else ""
    params = dict(module.named_parameters(recurse=False))
    if "weight" in params:
        return [Weight(torch_path(f"{at}weight"), n, True, (n,))]
    stacked = {k: p for k, p in params.items() if p.dim() >= 3}
    if not stacked and len(params) >= 2 and all(p.dim() == 2 for p in params.values()):
        stacked = params
    size = sum(math.prod(p.shape) for p in stacked.values())
    if not stacked or any(n * math.prod(p.shape) % size for p in stacked.values()):
        return [Weight(torch_path(f"{at}scores"), n, True, (n,))]
    return [Weight(torch_path(f"{at}{k}"), n * math.prod(p.shape) // size, True,
                   (n * math.prod(p.shape) // size // math.prod(p.shape[1:]), *p.shape[1:]))
            for k, p in stacked.items()]
