"""Layer composition read from a config's own per-layer lists, as counts (issue 19: "how many
layers carry each template is read from the config's own pattern fields").

Many configs say which kind each layer is by a list: ``layer_types`` (``full_attention`` among
``sliding_attention``), ``mlp_layer_types`` (``dense`` among ``sparse``), or a list of layer
indices (Mllama's ``cross_attention_layers``). Their defaults are computed from the layer count
by rules that are no polynomial (``min(3, L)`` dense layers, every sixth layer and the last), but
how many weights a template names only depends on how many layers of each kind there are. So,
as :mod:`paramcount.model.components.stacks` writes a heterogeneous stack, each kind's count is a
hyperparameter of its own and the last kind's is the remainder:

- a list of kinds named a ``…type…`` list, as long as a layer-count field: ``n_<list>_<kind>``
  for every kind but the one the base config has most of (``n_mlp_layer_types_dense``;
  ``sparse`` is L minus it);
- a list of layer indices named ``…layers`` or ``…layer_ids``, below a layer count:
  ``n_<list>``, how many of them are below it (``n_cross_attention_layers``).

Lists named otherwise stay the config's (Reformer's ``attn_layers`` is what its layer count is
read from; GPT-Neo's ``attention_layers`` is made from ``attention_types``).

Read (:func:`read`) from any config's lists, these are the counts the formula takes; written
(:func:`write`) for a build at chosen counts, each kind's layers are spread evenly over the stack,
the last layer the first counted kind's (Gemma 4 insists its last layer attends fully), the
remainder filling the rest, the first layer where any is left to it; a list of indices the base
gives as the first layers (Flint's ``mlp_only_layers`` [0, 1]) is written as the first layers
again, so that a pattern of a period beside it counts as a floor
(:func:`paramcount.analyze.derive.fit.fit`). A config that rewrites the list it was given refuses
that build (:func:`check`). An empty list, or one of a single kind, is left to the config
(nothing to count). Plain data: no torch, no SymPy.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Spec", "check", "find", "layer_counts", "names", "read", "write"]


@dataclass(frozen=True)
class Spec:
    """One per-layer list: the config key, the layer-count field it is as long as (or whose
    layers it indexes), and its kinds (the remainder last; empty for an index list)."""

    field: str
    length: str
    kinds: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        if not self.kinds:
            return (f"n_{self.field}",)
        return tuple(f"n_{self.field}_{_ident(k)}" for k in self.kinds[:-1])


def _ident(kind: str) -> str:
    return re.sub(r"\W", "_", kind)


def names(specs) -> list[str]:
    return [n for s in specs for n in s.names]


def layer_counts(values: Mapping[str, Any]) -> list[str]:
    """Integer fields that count layers (``num_hidden_layers`` first)."""
    found = [k for k, v in values.items() if type(v) is int and v > 0 and "layer" in k
             and not k.endswith("_index")]
    return sorted(found, key=lambda k: (k != "num_hidden_layers", k))


def find(values: Mapping[str, Any]) -> tuple[Spec, ...]:
    """The per-layer lists of a config's values (see the module's docstring)."""
    counts = layer_counts(values)
    out: list[Spec] = []
    seen: set[str] = set()
    for key, v in sorted(values.items()):
        if not isinstance(v, list) or not v or key.endswith("_config"):
            continue
        if all(isinstance(x, str) for x in v) and "type" in key:
            length = next((f for f in counts if values[f] == len(v)), None)
            tally = Counter(v)
            if length is None or len(tally) < 2:
                continue
            first = {k: v.index(k) for k in tally}
            rest = max(tally, key=lambda k: (tally[k], -first[k]))
            kinds = (*sorted((k for k in tally if k != rest), key=first.__getitem__), rest)
            if len({_ident(k) for k in kinds}) < len(kinds):
                continue
            spec = Spec(key, length, kinds)
        elif all(type(x) is int for x in v) and len(set(v)) == len(v) \
                and re.search(r"layers$|layer_ids$", key):
            length = next((f for f in counts if all(0 <= x < values[f] for x in v)
                           and len(v) < values[f]), None)
            if length is None:
                continue
            spec = Spec(key, length)
        else:
            continue
        if not seen & set(spec.names):
            seen |= set(spec.names)
            out.append(spec)
    return tuple(out)


def read(values: Mapping[str, Any], specs) -> dict[str, int]:
    """Each count of ``specs`` in a config's values (a list the config lacks: none)."""
    out: dict[str, int] = {}
    for s in specs:
        v, n = values.get(s.field), values.get(s.length)
        if not isinstance(v, list) or type(n) is not int:
            continue
        if not s.kinds:
            out[s.names[0]] = len({x for x in v if type(x) is int and 0 <= x < n})
            continue
        tally = Counter(v[:n])
        out.update({name: tally[k] for name, k in zip(s.names, s.kinds, strict=False)})
    return out


def _spread(n: int, free: list[int]) -> list[int]:
    """``n`` of the positions ``free`` spread evenly, the last of them included and the first
    only where all are taken: layer 0 is the remainder's wherever a layer is left to it, so a
    weight every layer but the first has (Inkling 2's attention_input) counts one fewer of the
    remainder, or of a kind that takes every layer, never of a kind past half the layers."""
    k = len(free)
    return [free[k - 1 - j * k // n] for j in reversed(range(n))] if n else []


def _prefix(v) -> bool:
    """Whether a list of layer indices is the first layers, 0 to n − 1 (n ≥ 1)."""
    return isinstance(v, list) and bool(v) and sorted(v) == list(range(len(v)))


def write(kwargs: Mapping[str, Any], specs, fallback: Mapping[str, Any]) -> dict[str, Any]:
    """``kwargs`` with every spec whose counts it gives written as its list (the counts
    removed, each cut to the layers the ones before it leave); the layer count from ``kwargs``,
    else ``fallback``."""
    out = dict(kwargs)
    for s in specs:
        if not any(n in out for n in s.names):
            continue
        given = {n: out.pop(n) for n in s.names if n in out}
        layers = out.get(s.length, fallback.get(s.length))
        if type(layers) is not int or layers < 0:
            raise ValueError(f"{s.length} must be an integer to write {s.field}")
        counts = {n: int(given.get(n, 0)) for n in s.names}
        if any(c < 0 for c in counts.values()):
            raise ValueError(f"{s.field}: a count below 0 ({counts})")
        left = layers  # counts beyond the layers are cut to them: a count no weight reads
        for n in s.names:  # keeps its base value as the layers vary (the counts that change a
            counts[n] = min(counts[n], left)  # weight are at most the layers, constraints)
            left -= counts[n]
        if not s.kinds:  # the first layers where the base's are (Flint's mlp_only_layers [0, 1])
            n = counts[s.names[0]]
            out[s.field] = list(range(n)) if _prefix(fallback.get(s.field)) else \
                _spread(n, list(range(layers)))
            continue
        listed = [s.kinds[-1]] * layers
        free = list(range(layers))
        for name, kind in zip(s.names, s.kinds, strict=False):
            at = _spread(counts[name], free)
            for i in at:
                listed[i] = kind
            taken = set(at)
            free = [i for i in free if i not in taken]
        out[s.field] = listed
    return out


def check(cfg, written: Mapping[str, Any], specs) -> None:
    """ValueError if a config object rewrote a list it was given (Gemma 4 forces its last layer
    to full attention): the counts asked for are not the build's."""
    for s in specs:
        if s.field in written and isinstance(written[s.field], list) and not isinstance(cfg, dict):
            now = getattr(cfg, s.field, None)
            if now is not None and list(now) != written[s.field]:
                raise ValueError(f"the config rewrites the {s.field} it is given")


def sum_candidates(raw: Mapping[str, Any]) -> list[tuple[str, tuple[str, ...]]]:
    """(total, parts): a layer count of ``raw`` (the base's values) that exactly one set of two
    to four smaller layer counts sums to (Dory's num_hidden_layers, its input, recurrent and
    output layers); whether the config insists on the sum, a build decides."""
    counts = layer_counts(raw)
    out = []
    for total in counts:
        others = [f for f in counts if f != total and raw[f] < raw[total]]
        subsets = [c for k in range(2, min(len(others), 4) + 1)
                   for c in itertools.combinations(others, k)
                   if sum(raw[f] for f in c) == raw[total]]
        if len(subsets) == 1:
            out.append((total, subsets[0]))
    return out


def follow_sums(kwargs: dict[str, Any], raw: Mapping[str, Any],
                sums: tuple[tuple[str, tuple[str, ...]], ...]) -> dict[str, Any]:
    """``kwargs`` with each total of ``sums`` following its parts, where a part is given off its
    base value (``raw``) and the total at its own."""
    for total, parts in sums:
        now = {f: kwargs.get(f, raw.get(f)) for f in (total, *parts)}
        if now[total] == raw.get(total) and any(now[p] != raw.get(p) for p in parts) \
                and all(type(now[p]) is int for p in parts):
            kwargs = {**kwargs, total: sum(now[p] for p in parts)}
    return kwargs
