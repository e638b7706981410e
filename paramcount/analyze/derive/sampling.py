"""The random points a derivation builds at (:func:`sample`, for
:func:`paramcount.analyze.derive.templates.fit_all`): layer counts in the base config's order,
widths keeping the base's divisibilities (or at random), a per-layer list's counts within its
layers (before and within a tail), flags either way. Plain data: no torch, no SymPy.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paramcount.analyze.derive.core import Derivation

__all__ = ["NICE", "sample", "steps"]

NICE = (2, 4, 6, 8, 12, 16, 24, 32, 48, 64)


STEP = 8  # a layer count drawn as a multiple of at most this (a build costs per layer)


def steps(d: Derivation, structural: list[str]) -> dict[str, int]:
    """The multiple each layer count is drawn as where the base's are: the least common
    multiple (at most STEP, the smallest first) of the integer fields that change no weight
    and divide it at the base (Inkling 2 Loop's looped layers from the 6th to the 18th, each
    end a multiple of its 6 layers per attention-residual block, which its config insists
    on); a layer count no such field divides is absent."""
    kept = sorted(v for g, v in d.explicit.items()
                  if g not in d.fields and type(v) is int and v > 1)
    out = {}
    for f in structural:
        m = 1
        for v in kept:
            if d.fields[f] > 0 and d.fields[f] % v == 0 and math.lcm(m, v) <= STEP:
                m = math.lcm(m, v)
        if m > 1:
            out[f] = m
    return out


def sample(rng: random.Random, d: Derivation, structural: list[str], dims: list[str],
           structured: bool, same: bool, lists=(), gaps: bool = False,
           multiple: Mapping[str, int] | None = None) -> dict[str, int]:
    """Small random values: layer counts in the base's order; widths dividing as at the base
    (``structured``; equal ones equal too with ``same``) or at random; a per-layer list's counts
    (``lists``: :mod:`paramcount.analyze.derive.layers`) within its layers. With ``gaps``
    and three layer counts or more, each is the one below plus a gap drawn alone: three sorted
    in 0 to 10 leave the largest within one period of the next (Jamba's attention layer
    every period-th from an offset, ⌈(L − offset) / period⌉, then reads as ⌊L / period⌋).
    With ``multiple`` (:func:`steps`) and ``structured``, each layer count it names is rounded up
    to its multiple."""
    point: dict[str, int] = {}
    counted = {n: s for s in lists for n in s.names if n in d.fields}
    structural = [f for f in structural if f not in counted]
    lo = {f: 0 if d.fields[f] == 0 else 1 for f in structural}
    # (the gaps small enough that the largest stays near 12: experts in a ModuleList are a
    # layer count too; with gaps up to 5 the beam row ran out of its 600 s, at most 3 it took
    # 254 s, proven, on this loaded machine)
    step = max(3, 12 // max(len(structural), 1))
    drawn = list(itertools.accumulate(rng.randint(0, step) for _ in structural)) \
        if gaps and len(structural) > 2 else sorted(rng.randint(0, 10) for _ in structural)
    prev = 0
    for f, v in zip(structural, drawn, strict=True):  # the base's order kept
        prev = max(v, lo[f], prev)
        k = (multiple or {}).get(f, 1) if structured else 1
        prev = -(-max(prev, lo[f] * k) // k) * k  # (not 0 where the base is not)
        point[f] = prev
    # fields that change no weight keep their base values, and may still divide one that does
    # (OPT's num_attention_heads divides hidden_size)
    kept = {g: v for g, v in d.explicit.items() if g not in d.fields and type(v) is int}
    for f in dims:
        if d.fields[f] == 0 and rng.random() < 0.3:  # a width 0 at the base: a part it removes
            point[f] = 0
        elif structured:
            now = {**kept, **{g: point[g] for g in point if g in dims}}
            divs = [g for g in now if now[g] > 1 and (kept.get(g) or d.fields[g]) > 1
                    and d.fields[f] % (kept.get(g) or d.fields[g]) == 0
                    and d.fields[f] != (kept.get(g) or d.fields[g])]
            m = 1
            for g in sorted(divs, key=lambda g: now[g]):  # the smallest first (GPT-NeoX's heads,
                m = m if math.lcm(m, now[g]) > 256 else math.lcm(m, now[g])  # not its context)
            twin = [g for g in point if same and g in dims and d.fields[g] == d.fields[f]]
            point[f] = point[twin[0]] if twin else \
                m * rng.randint(1, 4) if m > 1 else rng.choice(NICE)
        else:
            point[f] = rng.choice(NICE) if rng.random() < 0.25 else rng.randint(1, 40)

    def at(f):
        return point.get(f, d.fields.get(f, d.explicit.get(f, 0)))

    for s in lists:  # each kind's count at most what the layers before it leave (a tail's:
        tail = min(at(s.tail), at(s.length)) if s.tail else 0  # those before it, those within)
        one = len([n for n in s.names if n in counted]) == 1
        for names, left in ((s.head_names, at(s.length) - tail), (s.tail_names, tail)):
            for n in (n for n in names if n in counted):
                low, high = min(1, left), left
                if one:  # a list's one count among the layer counts in the base's order, as
                    # fit_all's chain states it (Zamba 2's num_mem_blocks shared blocks at most
                    # its hybrid layers: above, min(hybrid, blocks) of them are distinct)
                    low = max([low, *(point[f] for f in structural if d.fields[f] < d.fields[n])])
                    high = min([high, *(point[f] for f in structural if d.fields[f] > d.fields[n])])
                point[n] = rng.randint(min(low, high), high) if high > 0 else 0
                left -= point[n]
    for f in d.flags:
        point[f] = rng.randint(0, 1)
    return point
