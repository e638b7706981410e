"""Fields that change no weight at the base, probed again where the base hides what they
change: a field is said to change no weight only if no build shows it does (issue 32).

- **A tail the base lacks** (:func:`tailed`): a per-layer list's tail
  (:attr:`paramcount.analyze.derive.layers.Spec.tail`, Gemma's num_kv_shared_layers) empty at
  the base hides a field that changes only the tail's layers (Gemma 4's use_double_wide_mlp
  doubles the MLPs of its KV-shared layers): probed again with the tail non-empty, such a
  field is held at its base value, with why, not listed as changing no weight.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from paramcount.analyze.derive.templates import changes

if TYPE_CHECKING:
    from paramcount.analyze.derive.core import Run
    from paramcount.analyze.derive.probe import Source

__all__ = ["tailed"]


def tailed(run: Run, src: Source, at: Mapping[str, Any], inert: list[str],
           variations: Callable[[int], list[int]]) -> dict[str, str]:
    """The fields of ``inert`` (no variation at the base changed a weight) that change one
    where a per-layer list's tail, empty at the base, is not (Gemma 4's use_double_wide_mlp
    doubles the MLPs of its KV-shared layers, of which the base has none): each, with why, to
    be held at its base value. Probed at half the layers in the tail, the templates the builds
    split restored after (the derivation's builds see the base's); an integer at the first two
    of its ``variations``."""
    out: dict[str, str] = {}
    for s in getattr(src, "lists", ()):
        n, t = at.get(s.length), at.get(s.tail)
        if not (inert and s.tail and type(n) is int and n > 1 and t == 0):
            continue
        there = {**at, s.tail: n // 2}
        saved = set(src.split)
        try:
            ref = run.try_build(there)
            for f in (f for f in inert if isinstance(ref, dict) and f not in out):
                v = at[f]
                for w in [not v] if isinstance(v, bool) else variations(v)[:2]:
                    b = run.try_build({**there, f: w})
                    if isinstance(b, dict) and isinstance(ref, dict) and changes(ref, b):
                        out[f] = (f"changes a weight only where {s.tail} > 0 (at {s.tail} = "
                                  f"{n // 2}, {f} = {w}), and the base has {s.tail} = 0")
                        break
        finally:
            src.split.clear()
            src.split.update(saved)
    return out
