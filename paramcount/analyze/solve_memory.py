"""``solve --memory``: the longest context, or the largest batch, whose weights and KV cache fit
a memory budget.

The bytes are the weights' (:func:`paramcount.model.dtypes.weight_bytes`) plus the KV cache's
(:mod:`paramcount.model.cost`'s tree, exact), evaluated in integers; the cache never shrinks as T
or B grows, so the answer is found by doubling and bisection, each step an exact evaluation.
Activations, the framework's own buffers and fragmentation are not counted, and the answer
says so. Where the cache stops growing (every layer windowed, or a state that does not grow with
T) and the budget holds it, every context fits, and the answer says that instead of a number.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from paramcount.core.errors import HyperparameterError

if TYPE_CHECKING:
    from paramcount.model.dtypes import Dtype
    from paramcount.model.registry import Architecture

__all__ = ["NOT_COUNTED", "MemorySolution", "parse_memory", "solve_memory"]

_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12, "pb": 10**15,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40, "pib": 2**50}
LIMIT = 2**48  # the largest context or batch tried: beyond it, "every value fits"
NOT_COUNTED = ("activations, the framework's buffers and allocator fragmentation are not "
               "counted: the weights and the KV cache only")


def parse_memory(text: str) -> int:
    """A memory budget in bytes: ``80GB`` (10^9), ``80GiB`` (2^30), ``1.5TB``, ``512MiB`` or a
    plain number of bytes; exact (no float), a whole number of bytes."""
    raw = str(text).strip().replace("_", "").replace(",", "")
    m = re.fullmatch(r"([0-9]*\.?[0-9]+)\s*([A-Za-z]*)", raw)
    if not m or m.group(2).lower() not in _UNITS or len(m.group(1)) > 40:
        raise HyperparameterError(f"--memory {text!r}: expected bytes such as 80GB, 80GiB, 512MiB "
                                  "or 1000000000")
    exact = Decimal(m.group(1)) * _UNITS[m.group(2).lower()]
    if exact != exact.to_integral_value() or exact < 1:
        raise HyperparameterError(f"--memory {text!r}: must be a positive whole number of bytes")
    return int(exact)


@dataclass(frozen=True)
class MemorySolution:
    """The answer: ``value`` of ``unknown`` (None when nothing fits; ``unbounded`` when every
    value up to LIMIT fits because the cache stops growing), the bytes it uses and those one
    more would, what the weights take, and what stands behind the cache's formula."""

    arch: str
    unknown: str  # "T" or "B"
    other: int  # the fixed one: B when solving for T, T when solving for B
    memory: int
    dtype: Dtype
    cache_dtype: Dtype
    weight_bytes: int
    weight_bytes_exact: bool
    value: int | None
    used: int | None  # bytes at value
    next_used: int | None  # bytes at value + 1
    unbounded: bool
    kv_status: str
    kv_why: str


def solve_memory(arch: Architecture, hparams: Mapping[str, int], memory: int, unknown: str,
                 other: int, dtype: Dtype, record_path=None,
                 config: Mapping[str, int | None] | None = None) -> MemorySolution:
    """The largest ``unknown`` ("T": context, at batch ``other``; "B": batch, at context
    ``other``) whose weights in ``dtype`` and KV cache fit ``memory`` bytes (the cost fields, a
    window, as ``config`` gives them: a preset's)."""
    from paramcount.analyze import costs
    from paramcount.model import dtypes
    from paramcount.model.frameworks import for_framework

    if unknown not in ("T", "B"):
        raise HyperparameterError(f"solve --memory finds T (the context) or B (the batch), not "
                                  f"{unknown!r}")
    why = costs.formulated(arch, "kv") or costs.config_problem(arch, hparams, config or {})
    if why is not None:
        raise HyperparameterError(f"{arch.id}: no KV-cache formula to solve with ({why})")
    from paramcount.analyze.cost_status import statuses

    status, message = statuses(arch, record_path)["kv"]
    if status not in ("proven", "not proven"):
        raise HyperparameterError(f"{arch.id}: its KV-cache formula is {status} ({message}): "
                                  "no answer is given from it")
    shown = for_framework(arch, "transformers", hparams)
    every = shown.count(hparams) + shown.count_nontrainable(hparams)  # every weight it holds
    wbytes, exact = dtypes.weight_bytes(arch, hparams, every, dtype)
    cache = dtypes.cache_dtype(dtype)
    per = cache.bytes
    assert per is not None  # a cache is held in a float dtype

    def used(x: int) -> int:
        t, b = (x, other) if unknown == "T" else (other, x)
        return wbytes + costs.value(arch, "kv", hparams, t, b, config) * per

    def answer(value: int | None, at: int | None, after: int | None,
               unbounded: bool = False) -> MemorySolution:
        return MemorySolution(arch.id, unknown, other, memory, dtype, cache, wbytes, exact, value,
                              at, after, unbounded, status, message)

    if used(1) > memory:
        return answer(None, None, used(1))
    if used(LIMIT) <= memory:
        return answer(LIMIT, used(LIMIT), None, unbounded=True)
    lo, hi = 1, 2
    while used(hi) <= memory:  # used(lo) fits, used(hi) does not
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if used(mid) <= memory else (lo, mid)
    return answer(lo, used(lo), used(hi))
