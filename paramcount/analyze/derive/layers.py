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

A list beside a layer count naming the stack's last layers (a *tail*: Gemma's
num_kv_shared_layers, whose layers reuse the keys and values of those before them) counts its
kinds before the tail and within it apart (:attr:`Spec.tail_names`, :func:`with_tail`).

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

__all__ = ["Spec", "check", "find", "layer_counts", "names", "pinned", "read", "with_tail",
           "write"]


@dataclass(frozen=True)
class Spec:
    """One per-layer list: the config key, the layer-count field it is as long as (or whose
    layers it indexes), and its kinds (the remainder last; empty for an index list)."""

    field: str
    length: str
    kinds: tuple[str, ...] = ()
    tail: str = ""  # a layer count naming the stack's last layers (see :attr:`tail_names`)

    @property
    def names(self) -> tuple[str, ...]:
        if not self.kinds:
            return (f"n_{self.field}",)
        return tuple(f"n_{self.field}_{_ident(k)}" for k in self.kinds[:-1]) + self.tail_names

    def counted(self) -> dict[str, tuple[str, str, str]]:
        """Each count's (list, as its part read: ``layer_types[:num_hidden_layers -
        num_kv_shared_layers]`` with a tail; its layer count; its kind, "" for an index list)."""
        if not self.kinds:
            return {self.names[0]: (self.field, self.length, "")}
        cut = f"{self.length} - {self.tail}"
        head = f"{self.field}[:{cut}]" if self.tail else self.field
        return {**{n: (head, self.length, k) for n, k in zip(self.head_names, self.kinds,
                                                             strict=False)},
                **{n: (f"{self.field}[{cut}:]", self.length, k)
                   for n, k in zip(self.tail_names, self.kinds[1:], strict=False)}}

    @property
    def head_names(self) -> tuple[str, ...]:
        """The counts of the layers before the tail (all of them without one)."""
        return self.names[:len(self.kinds) - 1] if self.kinds else self.names

    @property
    def tail_names(self) -> tuple[str, ...]:
        """With a ``tail`` (Gemma's num_kv_shared_layers: the last layers reuse the keys and
        values of those before them, and have no key weights), a weight of one kind only
        before the tail is counted by how many layers of that kind lie before it, no function
        of the kinds' counts in the whole stack: the counts are taken apart, those before the
        tail (``names``' first) and those within it, ``n_<list>_<kind>_in_<tail>`` for every
        kind but the first counted, the tail's remainder (it ends the stack, as the last
        layer the first counted kind's does: Gemma 4's full attention)."""
        if not (self.kinds and self.tail):
            return ()
        return tuple(f"n_{self.field}_{_ident(k)}_in_{self.tail}" for k in self.kinds[1:])


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


def with_tail(spec: Spec, raw: Mapping[str, Any], weights) -> Spec:
    """``spec`` with its tail (:attr:`Spec.tail_names`): a layer count k of the base below its
    layers L, one more of which changes the weights of exactly layer L − k − 1, the layer it
    adds to the stack's last ones (Gemma's num_kv_shared_layers: that layer's key weights
    go), as ``weights(overrides)`` gives a build's (name, shape) pairs; else ``spec``."""
    n = raw.get(spec.length)
    if not spec.kinds or spec.tail or type(n) is not int:
        return spec
    for f in sorted(raw):  # (0 too: Gemma 4's base shares no layer)
        k = raw[f]
        if type(k) is not int or "layer" not in f or f.endswith("_index") \
                or f == spec.length or f in spec.names or not 0 <= k < n - 1:
            continue
        try:
            a, b = _by_layer(weights({f: k})), _by_layer(weights({f: k + 1}))
        except Exception:  # the config or the model refuses one more: no tail seen
            continue
        if {i for i in a.keys() | b.keys() if a.get(i) != b.get(i)} == {n - k - 1}:
            return Spec(spec.field, spec.length, spec.kinds, f)
    return spec


def _by_layer(named) -> dict[int, frozenset]:
    """(name, shape) pairs by the first index in the name (a layer's), the index folded."""
    out: dict[int, set] = {}
    for name, shape in named:
        m = re.search(r"(?<=\.)\d+(?=\.)", name)
        if m:
            out.setdefault(int(m.group()), set()).add((name[m.end():], tuple(shape)))
    return {i: frozenset(v) for i, v in out.items()}


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
        t = _tail_of(s, values, n)
        head, tail = Counter(v[:n - t]), Counter(v[n - t:n])
        out.update({name: head[k] for name, k in zip(s.head_names, s.kinds, strict=False)})
        out.update({name: tail[k] for name, k in zip(s.tail_names, s.kinds[1:], strict=False)})
    return out


def _tail_of(s: Spec, values: Mapping[str, Any], layers: int) -> int:
    """How many of the ``layers`` the spec's tail names (0 without one), within them."""
    t = values.get(s.tail) if s.tail else 0
    return min(max(t, 0), layers) if type(t) is int else 0


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
        for n in s.head_names:  # keeps its base value as the layers vary (the counts that
            counts[n] = min(counts[n], left)  # change a weight are at most the layers,
            left -= counts[n]  # constraints; a tail's cut to its segment, below)
        if not s.kinds:  # the first layers where the base's are (Flint's mlp_only_layers [0, 1])
            n = counts[s.names[0]]
            out[s.field] = list(range(n)) if _prefix(fallback.get(s.field)) else \
                _spread(n, list(range(layers)))
            continue
        t = _tail_of(s, {**fallback, **out}, layers)
        listed = [s.kinds[-1]] * (layers - t) + [s.kinds[0]] * t
        _fill(listed, list(range(layers - t)), s.head_names, s.kinds, counts)
        # within the tail from its first layer, its last the remainder's while one is left
        _fill(listed, list(range(layers - 1, layers - t - 1, -1)), s.tail_names, s.kinds[1:],
              counts)
        out[s.field] = listed
    return out


def pinned(specs, given: Mapping[str, Any], raw: Mapping[str, Any],
           overrides: Mapping[str, Any]) -> dict[str, int]:
    """The base's counts (``raw``) of each list of ``specs`` the given config states (a saved
    file's ``layer_types``) whose layer count ``overrides`` changes and whose counts it does not
    give (kinds that change no weight are no hyperparameters): :func:`write` then writes the
    list at the new length with those counts, cut to its layers, as a class insists on a list
    as long as its layers (Exaone 4's)."""
    return {n: v for s in specs if s.field in given and s.length in overrides
            and not set(s.names) & overrides.keys() for n, v in read(raw, [s]).items()}


def _fill(listed: list, free: list[int], names, kinds, counts: dict[str, int]) -> None:
    """Each name's count of its kind written at ``free`` positions (each count cut to those
    the ones before it leave), spread evenly, the last free position the first's."""
    for name, kind in zip(names, kinds, strict=False):
        counts[name] = min(counts[name], len(free))
        at = _spread(counts[name], free)
        for i in at:
            listed[i] = kind
        taken = set(at)
        free = [i for i in free if i not in taken]


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
