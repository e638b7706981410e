"""Each order a derivation states, checked against builds (issue 32): a constraint is what a
build requires, so an order ``a <= b`` stays one only where builds breaking it alone are refused.

The random builds draw the layer counts in the order the base config has them (and a per-layer
list's counts within its layers), so every fit was made on one side of each such order. After
the fit, each ``<=`` the derivation holds is broken alone (one field moved past the other, every
other relation kept) from a few of the accepted builds, and built:

- every such build refused: a constraint, as stated;
- they build, and each counts what the formula counts there: no constraint (StableLM's
  ``num_hidden_layers <= num_attention_heads``, which only the base config's order said);
- they build, and one counts otherwise (or no build breaks it alone): the formula's *domain* (DeepSeek's
  ``first_k_dense_replace <= num_hidden_layers``: above, every layer is dense, no polynomial of
  the two), said as where the formula was derived, not as what a build requires.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from paramcount.analyze.derive.core import Derivation, Run
    from paramcount.analyze.derive.probe import Built

__all__ = ["check_orders", "total"]

TRIES = 3  # builds breaking one order, each from another accepted build


def total(b: Built) -> dict[str, int]:
    """A build's weights by role (trainable, frozen, buffer), as Derivation.count gives them."""
    out = {"trainable": 0, "frozen": 0, "buffer": 0}
    for o in b.values():
        out[o.role] += o.count * math.prod(o.shape)
    return out


def _val(p: Mapping[str, int], x: str, kept: Mapping[str, Any]) -> int:
    if "+" in x:  # a per-layer list's counts together
        return sum(_val(p, y, kept) for y in x.split("+"))
    if "//" in x:
        a, b = x.split("//")
        n = _val(p, b, kept)
        return _val(p, a, kept) // n if n else 0
    if x.startswith("2*"):
        return 2 * _val(p, x[2:], kept)
    if x.isdigit():
        return int(x)
    return int(p[x]) if x in p else int(kept[x])


def _holds(c: tuple[str, str, str], p, kept) -> bool:
    op, a, b = c
    x, y = _val(p, a, kept), _val(p, b, kept)
    if op == "divides":
        return y == 0 or x % y == 0
    return x <= y if op == "<=" else True


def _breaking(c: tuple[str, str, str], p: dict[str, int], others, kept) -> list[dict[str, int]]:
    """Points near ``p`` where ``c`` (a <= b) fails and every relation of ``others`` holds: a
    moved past b, or b below a."""
    _, a, b = c
    first = a.split("+")[0]
    lo, hi = _val(p, a, kept), _val(p, b, kept)
    out = []
    for step in (1, 2):
        out.append({**p, first: p[first] + hi - lo + step})
    if b in p and "+" not in b and lo - 1 >= 0:
        out.append({**p, b: lo - 1})
    return [q for q in out if not _holds(c, q, kept) and all(_holds(o, q, kept) for o in others)]


def check_orders(run: Run, d: Derivation, samples, values: Mapping[str, Any]) -> None:
    """Decide each ``<=`` of ``d.constraints`` (and ``d.domain``) by builds that break it alone
    (see the module's docstring); ``samples``: the fit's accepted (point, build) pairs."""
    if d.failures:
        return
    kept = {**{g: v for g, v in values.items() if type(v) is int}, **d.fields}
    orders = [c for c in [*d.constraints, *d.domain] if c[0] == "<="]
    flags = set(d.flags)
    domain: list[tuple[str, str, str]] = []
    dropped: list[tuple[str, str, str]] = []
    for c in dict.fromkeys(orders):
        others = [o for o in [*d.constraints, *d.domain] if o != c and o not in dropped]
        built = refused = 0
        differs = False
        for p, _ in samples:
            if built + refused >= TRIES:
                break
            q = next(iter(_breaking(c, dict(p), others, kept)), None)
            if q is None:
                continue
            b = run.try_build({**values, **{k: (bool(v) if k in flags else v)
                                            for k, v in q.items()}})
            if isinstance(b, str):
                refused += 1
                continue
            built += 1
            differs = differs or total(b) != d.count(q)
        if refused and not built:
            continue  # every build breaking it alone refused: a constraint, as stated
        # no build needs it (or none broke it alone): where the formula was derived, if a
        # build beyond it counts otherwise or none was made; else nothing
        (domain if differs or not built else dropped).append(c)
    # an order the domain held before (a refit) and builds now refuse is a constraint again
    d.constraints = [c for c in dict.fromkeys([*d.constraints, *d.domain])
                     if c not in domain and c not in dropped]
    d.domain = domain
