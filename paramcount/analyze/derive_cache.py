"""The KV cache of any transformers model, derived as its parameters are: the cache a forward of
B sequences of T tokens returns is observed as weights of a module of its own (each cache layer's
keys, values or states at their shapes), with T and B two more fields, and the derivation's whole
machinery (:mod:`paramcount.analyze.derive`) fits each tensor's shape and how many layers hold it,
then proves the formula ≡ the cache for all hyperparameters, T and B included.

A window (Mistral's ``sliding_window``) is a second regime: past it a windowed layer keeps what
transformers keeps, min(T, w − 1), no polynomial of T. The prover interpolates T at small nodes,
so it would not see one: :func:`window` builds once at T beyond every integer of the config and
compares, before any claim, and a window it finds is derived as two regimes, each a polynomial.

This module is outside the parameter derivation's code digest (:func:`store.fingerprint`); a
cache derivation is keyed by that digest and by this module and the forward's inputs besides.
Imports torch and transformers inside functions only: used in a torch worker.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paramcount.analyze.derive.probe import Source

__all__ = ["CacheSource", "Regime", "cache_module", "cache_part", "derive_cache", "elements",
           "fingerprint", "forward", "one_wide", "window", "windows"]

# the base context and batch: small, apart from each other and from the layer counts the probes
# use, and T below every window of the defaults
BASE = {"T": 5, "B": 3}
KIND = "derive-kv"
# the two regimes of a window w (a layer keeping its last w positions): below it, T ≤ w − 1,
# derived with w = T + BELOW; past it, T ≥ w, with T = w + PAST − 1: each a polynomial, BELOW and
# PAST two more fields of at least 1 (:class:`CacheSource`'s ``regime``)
BELOW, PAST = "window_over_T", "T_over_window"
PREFIX = "kv_cache"  # the cache's module in a build: its templates' names begin so


class CacheSource(Source):
    """A :class:`~paramcount.analyze.derive.probe.Source` whose build carries, beside its
    weights, the cache a forward of it returns (:func:`cache_module`), at the config's fields
    ``T`` and ``B`` (given to the config class as two more keys: it keeps them as attributes
    and builds nothing of them); ``cache_only``: the cache alone (the proof's builds).

    A subclass observes something else a forward gives as a module of shaped tensors (its
    :meth:`observed`, under ``prefix``; :class:`paramcount.analyze.derive_flops.FlopSource`'s
    operations), derived, checked and proven by the same functions."""

    prefix = PREFIX  # the observed module's name in a build
    kind = KIND  # the cache kind its derivations are stored under (and +"-proof" its proofs)
    noun = "the cache holds {} elements"  # what the window check says a build gives
    empty = "returns no cache from a forward"  # a derivation observing none of it
    code: tuple[Path, ...] = ()  # modules beside this one whose source keys its derivations

    # a forward rotates an odd head in RoPE at no width (Qwen 2's head_dim 3 fails to broadcast,
    # and :func:`cache_module` refuses a head one wide): its evenness is asked at every width
    odd_passes = 0

    def __init__(self, *, regime: tuple[str, str] | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        for k, v in BASE.items():
            self.base.setdefault(k, v)
        # (BELOW or PAST, the window's field): T tied to the window by one more field
        self.regime = regime
        if regime is not None:
            self.base[regime[0]] = 3
            if regime[1] not in self.base:  # the window at the config class's default
                from transformers import AutoConfig

                self.base[regime[1]] = getattr(AutoConfig.for_model(self.model_type, **{
                    k: v for k, v in self.base.items() if k != regime[0]}), regime[1])
        # the proof's builds: the cache alone (the derivation's own keep the weights beside it)
        self.cache_only = False

    def init_fields(self) -> set[str] | None:
        found = super().init_fields()
        return None if found is None else found | set(BASE) | {r[0] for r in [self.regime] if r}

    def config(self, overrides: Mapping[str, Any]):
        """As the source's, with the window or T written from the regime's field: below, the
        window w = T + BELOW; past it, T = w + PAST − 1 (a variation of the field written so is
        read back as before, and held: it follows)."""
        if self.regime is not None:
            gap, w = self.regime
            at = {**self.base, **overrides}
            overrides = {**overrides, **({w: at["T"] + at[gap]} if gap == BELOW
                                         else {"T": at[w] + at[gap] - 1})}
        return super().config(overrides)

    def model(self, cfg):
        """The build at ``cfg`` with its cache (:func:`cache_module`) as a module ``kv_cache`` of
        its own: the weights and the cache derived together, so a field that shapes no cache
        tensor but bounds what builds (a head count that the key/value heads divide) is a field
        of the derivation as it is of the parameters'."""
        import torch

        from paramcount.analyze.derive import deadline

        deadline.check(f"running {self.cls_name}'s forward")  # (the proof's builds too)
        model = super().model(cfg)
        held = self.observed(model, *(int(getattr(cfg, k)) for k in ("B", "T")))
        if self.cache_only:
            model = torch.nn.Module()
        model.add_module(self.prefix, held)
        return model

    def observed(self, model, batch: int, context: int):
        """What one forward of ``model`` over ``batch`` × ``context`` tokens gives, as a module
        of shaped tensors: here its cache (:func:`cache_module`)."""
        return cache_module(model, batch, context)


def cache_module(model, batch: int, context: int):
    """A module holding, as persistent buffers of its own, the cache one forward of ``model`` over
    ``batch`` sequences of ``context`` token ids returns (:func:`forward`):
    ``layers.<i>.<attribute>`` each cache layer's tensors of two axes or more (keys, values, a
    state; a dict's by key), on the meta device."""
    import torch

    cache = forward(model, batch, context)
    holder = torch.nn.Module()
    holder.layers = torch.nn.ModuleList()
    for layer in getattr(cache, "layers", ()) or ():
        one = torch.nn.Module()
        for name, value in vars(layer).items():
            for key, tensor in _tensors(name, value):
                one.register_buffer(key, tensor)
        one_wide(one)
        holder.layers.append(one)
    return holder


def forward(model, batch: int, context: int, *within) -> Any:
    """The cache one forward of ``model`` over ``batch`` sequences of ``context`` token ids on the
    meta device returns (None without one), run inside the context managers ``within`` too (a
    dispatch mode that records operations). A router's experts gather each token's k
    (:func:`reference_models.hf_costs.gather_experts`), so the forward needs no data."""
    import contextlib

    import torch

    from reference_models.hf_costs import gather_experts
    from reference_models.hf_inputs import fed, unread

    if hasattr(type(model), "_can_set_experts_implementation"):
        gather_experts(model)
    with torch.device("meta"):
        ids = torch.zeros((batch, context), dtype=torch.long)
    inputs = fed(model, ids)
    with contextlib.ExitStack() as stack:
        for c in (torch.no_grad(), unread(inputs, ids), *within):
            stack.enter_context(c)
        out = model(**inputs, use_cache=True)
    return next((c for c in (getattr(out, n, None) for n in ("past_key_values", "cache",
                                                              "cache_params")) if c is not None),
                None)


def one_wide(layer) -> None:
    """Refuse a forward whose heads are one wide: its rotary table (two wide, ``cat(freqs,
    freqs)``) broadcasts each key to two, values staying one, where any wider odd head fails
    outright. No model keeps such a cache, and taken as a build it bends the fit (keys
    2·⌈d/2⌉ wide, divisibilities read into the refusals): refused, as the odd widths are."""
    keys, values = getattr(layer, "keys", None), getattr(layer, "values", None)
    if keys is not None and values is not None and keys.shape[-1] == 2 and \
            values.shape[-1] == 1 and keys.shape[:-1] == values.shape[:-1]:
        raise ValueError("a head one wide: its rotary table broadcasts each key to two")


def _tensors(name: str, value) -> list[tuple[str, Any]]:
    """(buffer name, tensor) for an attribute of a cache layer: a tensor of two axes or more, or
    a dict's or list's such tensors named by key (a count, a position, a flag is none)."""
    import torch

    if torch.is_tensor(value):
        return [(name, value)] if value.dim() >= 2 else []
    if isinstance(value, Mapping):
        return [x for k, v in value.items() for x in _tensors(f"{name}_{k}", v)]
    if isinstance(value, (list, tuple)):
        return [x for i, v in enumerate(value) for x in _tensors(f"{name}_{i}", v)]
    return []


def _atoms(a) -> set[str]:
    """The names an atom of a fitted expression reads (a floor's divisor too)."""
    from paramcount.analyze.derive import claims

    if isinstance(a, str):
        return {a}
    return _atoms(a[1]) | set(claims.names(a[2]))


def _reads(t) -> set[str]:
    """The names a template's count and dimensions read."""
    return {n for poly in (t.mult, *t.dims) for _, atoms in poly for a in atoms for n in _atoms(a)}


def cache_part(d, tied: str | None = None, prefix: str = PREFIX):
    """The derivation of the cache alone: its tensors' templates, and the fields they read or
    that a stated constraint binds to those (a head count the key/value heads divide), every
    other field at its base value (``explicit``): the derivation's builds varied those, and no
    cache tensor followed them. ``tied``: the field a regime writes (T past a window, the window
    below it), which follows, not held."""
    from paramcount.analyze.derive import claims

    templates = [t for t in d.templates if t.name.startswith(prefix + ".")]
    keep = {n for t in templates for n in _reads(t)} & set(d.fields)
    # no config binds the context or the batch: a divisibility the refusals seemed to show in
    # them (Mistral's B by head_dim/2, met by chance where a forward failed for another reason)
    # would narrow the proof's B and T; the proof over all of them decides instead
    rules = [c for c in d.constraints
             if not {n for side in c[1:] for n in claims.names(side)} & set(BASE)]
    grown = True
    while grown:  # a constraint on a kept field keeps the fields it binds to it
        grown = False
        for _, a, b in rules:
            names = {n for side in (a, b) for n in claims.names(side)} & set(d.fields)
            if names & keep and not names <= keep:
                keep |= names
                grown = True
    near = [c for c in rules if {n for side in c[1:] for n in claims.names(side)} & keep]
    return dataclasses.replace(
        d, fields={k: v for k, v in d.fields.items() if k in keep},
        flags=tuple(f for f in d.flags if f in keep), templates=templates, constraints=near,
        domain=[c for c in d.domain if {n for s in c[1:] for n in claims.names(s)} <= keep],
        conditional=[c for c in d.conditional if c[3] in keep],
        counts={k: v for k, v in d.counts.items() if k in keep},
        equal={k: v for k, v in d.equal.items() if v in keep},
        untied=[u for u in d.untied if u.startswith(prefix + ".")],
        unvaried={k: v for k, v in d.unvaried.items() if k != tied})


def elements(d, values: Mapping[str, int]) -> int:
    """The cache's elements the derivation ``d`` (:func:`cache_part`'s) gives at ``values``
    (missing: its base)."""
    return sum(d.count(values).values())


def window(d, src: CacheSource, field: str = "T") -> str:
    """Why the derived cache is not the build's past every context the derivation drew, or "":
    one build at T beyond every integer of the config (a window, a chunk, the positions a table
    holds), its cache against the formula. A layer that keeps the last w positions keeps
    min(T, w), which no polynomial of T is; the prover interpolates T at small nodes, so this
    check is what stands between a window and a claim."""
    base = {**d.explicit, **{k: (bool(v) if k in d.flags else v) for k, v in d.fields.items()}}
    far = 2 * max([v for v in src.values(src.config({})).values() if type(v) is int] + [1]) + 3
    was, src.cache_only = src.cache_only, True
    try:
        from reference_models.hf import torch_weights

        built = sum(w.size for w in torch_weights(src.model(src.config({**base, field: far}))))
    finally:
        src.cache_only = was
    said = elements(d, {field: far})
    if built == said:
        return ""
    keys = windows(src)
    return (f"at {field} = {far:,} {src.noun.format(f'{built:,}')} where the formula fitted below "
            f"says {said:,}: past {'a window (' + ', '.join(keys) + ')' if keys else 'some T'} "
            "a layer keeps fewer positions than T, min(T, w), which is no polynomial of T")


def windows(src: CacheSource) -> list[str]:
    """The config's integer fields that may bound the positions a layer keeps: those of its
    class named for a window or a chunk (not PretrainedConfig's own, its feed-forward chunks)."""
    from transformers import PretrainedConfig

    own = (src.init_fields() or set()) - set(PretrainedConfig().to_dict()) - {BELOW, PAST}
    return sorted(k for k, v in src.values(src.config({})).items()
                  if type(v) is int and k in own and ("window" in k or "chunk" in k))


def fingerprint(cls: str | None = None, code: tuple[Path, ...] = ()) -> str:
    """The parameter derivation's digest with this module's source and the forward's inputs',
    and ``code``'s (a source's :attr:`CacheSource.code`)."""
    import hashlib

    from paramcount.analyze.derive import store

    h = hashlib.sha256(store.fingerprint(cls).encode())
    root = Path(__file__).resolve().parents[2]
    for f in (Path(__file__), root / "reference_models" / "hf_inputs.py", *code):
        h.update(f.read_bytes())
    return h.hexdigest()


@dataclass(frozen=True)
class Regime:
    """One regime's cache derivation: ``label`` ("" for all T; else which side of the window),
    its derivation (:func:`cache_part`), why its formula is not the build's past the values it
    was fitted at ("" where it is: :func:`window`), and its proof's cases."""

    label: str
    derivation: Any
    why: str
    cases: tuple[dict[str, Any], ...] = ()
    window: str = ""  # the window's field, where the regime is one side of it
    below: bool = False  # the side: T below the window (else past it)
    width: int = 0  # the window at the config class's defaults

    def holds(self, context: int) -> bool:
        """Whether the regime covers ``context`` tokens at the defaults' window."""
        return not self.window or (context < self.width) == self.below

    def elements(self, values: Mapping[str, int]) -> int:
        """The cache's elements at ``values`` (T, B; the rest at the defaults), T on this side."""
        if not self.holds(values.get("T", BASE["T"])):
            raise ValueError(f"T = {values.get('T')} is not {self.label}")
        at = {k: v for k, v in values.items() if k in self.derivation.fields}
        if self.window and not self.below and PAST in self.derivation.fields:
            at = {**at, PAST: values["T"] - self.width + 1}
        return elements(self.derivation, at)

    @property
    def proven(self) -> bool:
        return bool(self.cases) and not self.why and all(c["status"] == "proven"
                                                         for c in self.cases)


def derive_cache(model_type: str, cls: str | None = None, *, use_cache: bool = True,
                 prove: bool = True, source: type[CacheSource] = CacheSource) -> list[Regime]:
    """The cache of ``model_type``'s class ``cls`` at its config class's defaults, derived
    (:func:`cache_part`) and proven: one regime for all T, or, where a window bounds what a
    layer keeps (:func:`window`) and the config names one field for it, two: T below the window
    and T past it, each derived with T tied to it by a field of its own. No proof without
    ``prove``, or where a derivation failed or its window check did. ``source``: what a
    forward is observed for (a subclass of :class:`CacheSource`)."""
    from paramcount.analyze import budget
    from paramcount.analyze.derive import require

    require()
    src = source(model_type=model_type, cls=cls, max_weights=budget.limit(None))
    one = _regime(src, "", None, "T", use_cache=use_cache, prove=prove)
    keys = windows(src)
    if not one.why or len(keys) != 1:
        return [one]
    out = []
    width = int(src.values(src.config({}))[keys[0]])
    for gap, label, tied, far in ((BELOW, f"T < {keys[0]}", keys[0], "T"),
                                  (PAST, f"T >= {keys[0]}", "T", PAST)):
        there = source(model_type=model_type, cls=cls, max_weights=src.max_weights,
                       regime=(gap, keys[0]))
        r = _regime(there, label, tied, far, use_cache=use_cache, prove=prove)
        out.append(dataclasses.replace(r, window=keys[0], below=gap == BELOW, width=width))
    return out


def _regime(src: CacheSource, label: str, tied: str | None, far: str, *, use_cache: bool,
            prove: bool) -> Regime:
    """One regime of :func:`derive_cache`: derived, checked at ``far`` beyond every integer of
    the config, proven; each step cached (keyed by the derive code, this module, the versions
    and the base config)."""
    from paramcount.analyze.derive import store
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.proof import prove_derivation
    from paramcount.runtime import cache

    digest = cache.key(src.kind, src.model_type, src.cls_name,
                       json.dumps(src.base, sort_keys=True, default=str), label,
                       sorted(cache.library_versions().items()), fingerprint(src.cls_name, src.code))
    found = cache.get_json(src.kind, digest) if use_cache else None
    if isinstance(found, dict):
        whole, why = store.from_json(found["derivation"]), str(found["window"])
    else:
        whole = derive(src)
        why = "" if whole.failures else window(cache_part(whole, tied, src.prefix), src, far)
        cache.put_json(src.kind, digest, {"derivation": store.to_json(whole), "window": why})
    d = cache_part(whole, tied, src.prefix)
    if not d.templates and not whole.failures:  # (RoBERTa's causal LM, not a decoder by default)
        from paramcount.analyze.derive.observing import DeriveError

        raise DeriveError(f"{src.cls_name} {src.empty} at its config class's defaults")
    if not prove or whole.failures or why:
        return Regime(label, d, why)
    key = cache.key(src.kind + "-proof", digest, json.dumps(store.to_json(d), sort_keys=True),
                    store.fingerprint(d.cls, proof=True))
    cases = cache.get_json(src.kind + "-proof", key) if use_cache else None
    if not isinstance(cases, list):
        src.cache_only = True
        cases = [{"case": c.case, "status": c.status, "message": c.message}
                 for c in prove_derivation(d, src).cases]
        cache.put_json(src.kind + "-proof", key, cases)
    return Regime(label, d, why, tuple(cases))
