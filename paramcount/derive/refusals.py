"""Constraints of a derivation: the order of its layer-count fields, and divisibilities that a
config validator or the model insists on, each confirmed by a build that breaks it alone."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from paramcount.derive.core import Derivation

__all__ = ["constraints"]


def constraints(run, d: Derivation, samples, refused, order: list[str],
                 values: Mapping[str, Any]) -> None:
    """Order relations of the layer-count fields (kept in every sample) and divisibilities
    that explain the refusals."""
    for a, b in itertools.pairwise(order):
        if d.fields[a] < d.fields[b]:
            d.constraints.append(("<=", a, b))
    ints = [f for f in d.fields if f not in d.flags]
    if not refused:
        return
    kept = {g: v for g, v in d.explicit.items() if g not in d.fields and type(v) is int and v > 1}
    divisors = [*ints, *kept, "2"]

    def val(p, x):  # a field that changes no weight divides at its base value
        return 2 if x == "2" else kept[x] if x in kept else p[x]

    # values up to 4 are left out: transformers' RoPE check lets an odd head_dim ≤ 4 pass
    held = [(a, b) for a in ints for b in divisors if a != b
            and all(p[a] % val(p, b) == 0 for p, _ in samples if val(p, b) and p[a] > 4)]
    # each divisibility every build met is tested alone: the first build, with a moved off
    # b's multiples but kept on its other divisors'; refused, the divisibility is a constraint
    # (the random values meet some divisibilities by chance: vocab_size even)
    p0 = samples[0][0]
    over = {**values, **{k: (bool(v) if k in d.flags else v) for k, v in p0.items()}}
    for a, b in held:
        others = [val(p0, c) for x, c in held if x == a and c != b and val(p0, c)]
        step = math.lcm(*others) if others else 1
        moved = p0[a]
        for _ in range(8):
            moved += step
            if moved > 4 and moved % val(p0, b):
                break
        else:  # b divides every multiple of the others (two heads fields alike, BART's; an
            # even head_dim that heads divides): a moved off b's multiples alone, and a refusal
            # there is b's unless a divisibility already recorded explains it
            b_val = val(p0, b)
            moved = next((m for m in range(p0[a] + 1, p0[a] + b_val + 6)
                          if m > 4 and b_val > 1 and m % b_val), 0)
            if not moved or any(x == a and moved % val(p0, c) for op, x, c in d.constraints
                                if op == "divides" and val(p0, c)):
                continue
        if isinstance(run.try_build({**over, a: moved}), str):
            d.constraints.append(("divides", a, b))
