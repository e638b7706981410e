"""Constraints of a derivation: the order of its layer-count fields, and divisibilities that a
config validator or the model insists on, each confirmed by a build that breaks it alone.

A divisor is a field, a field that changes no weight (at its base value), the constant 2, or
twice a field (``2*num_attention_heads``: transformers' RoPE check wants an even head_dim, and
where head_dim is hidden_size // num_attention_heads, 2·heads divides hidden_size). Even
quotients are asked only above 4: the RoPE check lets an odd head_dim ≤ 4 pass.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from paramcount.derive.core import Derivation

__all__ = ["constraints"]

TRIES = 12  # accepted samples a build breaking one divisibility alone is looked for from


def constraints(run, d: Derivation, samples, refused, order: list[str],
                values: Mapping[str, Any]) -> None:
    """Order relations of the layer-count fields (kept in every sample) and divisibilities
    that explain the refusals."""
    for a, b in itertools.pairwise(order):
        if d.fields[a] < d.fields[b]:
            d.constraints.append(("<=", a, b))
    ints = [f for f in d.fields if f not in d.flags]
    # tested even where no sample was refused: the random values meet some by chance (MiniMax-M2's
    # head_dim stayed even), and the proof's large ones do not
    kept = {g: v for g, v in d.explicit.items() if g not in d.fields and type(v) is int and v > 1}
    divisors = [*ints, *kept, "2", *(f"2*{f}" for f in ints)]

    def val(p, x) -> int:  # a field that changes no weight divides at its base value
        if x.startswith("2*"):
            return 2 * val(p, x[2:])
        return 2 if x == "2" else kept[x] if x in kept else p[x]

    def asked(p, a, b) -> bool:
        n = val(p, b)
        return bool(n) and p[a] > (2 * n if b.startswith("2") else 0)

    def broken(p, a, b) -> bool:
        return asked(p, a, b) and p[a] % val(p, b) != 0

    points = [p for p, _ in samples]
    held = [(a, b) for a in ints for b in divisors if a != b and b != f"2*{a}"
            and any(asked(p, a, b) for p in points) and not any(broken(p, a, b) for p in points)]

    def const(x) -> int | None:  # a divisor's value where no field that changes a weight
        if x.startswith("2*"):  # sets it (2, or one that changes no weight, or twice that)
            n = const(x[2:])
            return None if n is None else 2 * n
        return 2 if x == "2" else kept.get(x)

    def implied(a, b, x, y) -> bool:  # breaking b | a breaks y | x too: y a multiple of b
        if x != a:  # (constants too: BART's decoder heads equal its encoder's, Aria's top-k 2)
            return False
        m, n = const(b), const(y)
        return y == f"2*{b}" or (b == "2" and y.startswith("2*")) or (
            m is not None and n is not None and n % m == 0)

    def alone(q, a, b) -> bool:
        return broken(q, a, b) and all(
            not broken(q, x, y) for x, y in held
            if (x, y) != (a, b) and not implied(a, b, x, y)
        ) and all(val(q, x) <= val(q, y) for op, x, y in d.constraints if op == "<=")

    found = []
    # a width at least another (CTRL's n_embd at least n_head: head_dim = n_embd // n_head
    # is 0 below, and head_dim ** -0.5 raises), where every sample had it and a refused one not
    below = [(b, a) for a in ints for b in [*ints, *kept] if a != b and b not in order
             and all(p[a] >= val(p, b) for p in points)
             and any(p[a] < val(p, b) for p, _ in refused)]
    for b, a in below:
        q = _alone(points, [a], held, lambda q, a=a, b=b: q[a] < val(q, b) and not any(
            broken(q, x, y) for x, y in held) and all(q[x] >= val(q, y) for y, x in below
                                                     if (y, x) != (b, a)))
        if q is not None and isinstance(run.try_build(
                {**values, **{k: (bool(v) if k in d.flags else v) for k, v in q.items()}}), str):
            d.constraints.append(("<=", b, a))
    # one met by chance and shown not insisted on (a build breaking it alone is accepted) no
    # longer has to hold while the others are broken: CodeGen's samples all had the vocabulary
    # dividing n_embd, which kept any n_embd off its heads' multiples from being tried
    undecided = list(held)
    while undecided:
        progress = False
        for a, b in list(undecided):
            q = _alone(points, [f for f in (a, b.removeprefix("2*")) if f in d.fields],
                       held, lambda q, a=a, b=b: alone(q, a, b))
            if q is None:
                continue
            undecided.remove((a, b))
            progress = True
            over = {**values, **{k: (bool(v) if k in d.flags else v) for k, v in q.items()}}
            if isinstance(run.try_build(over), str):
                found.append((a, b))
            else:
                held.remove((a, b))
        if not progress:
            break
    # a stronger divisibility recorded makes the weaker one it implies redundant
    d.constraints += [("divides", a, b) for a, b in found
                      if not any(implied(a, b, x, y) and not implied(x, y, a, b)
                                 for x, y in found if (x, y) != (a, b))]


def _alone(points, fields: list[str], held, alone) -> dict[str, int] | None:
    """A point near an accepted sample that breaks one divisibility alone: one field moved, and
    the fields it divided there (Jais 2's head_dim divides hidden_size) multiplied to match, or
    the fields that divided it set to 1."""
    for p in points[:TRIES]:
        for f in fields:
            for m in range(1, 2 * p[f] + 13):
                q = {**p, f: m}
                if m == p[f]:
                    continue
                if alone(q):
                    return q
                q.update({x: p[x] * m for x, y in held if y == f and x != f})
                if alone(q):
                    return q
                # the fields that divided it (Llama's heads, KV heads: head_dim odd) at 1
                q = {**p, **dict.fromkeys(_divisors(f, held, set(p)), 1), f: m}
                if alone(q):
                    return q
    return None


def _divisors(f: str, held, fields: set[str]) -> set[str]:
    """The fields that divide ``f`` in every sample, and theirs in turn."""
    out: set[str] = set()
    todo = [f]
    while todo:
        x = todo.pop()
        for a, y in held:
            if a == x and y in fields and y not in out and y != f:
                out.add(y)
                todo.append(y)
    return out
