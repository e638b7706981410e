"""Deriving a model's parameter count from its builds: fields, templates, exact expressions.

1. **Fields.** Every integer field and flag the config class takes is varied alone from the
   base config; those that change a weight's shape or how many weights a template names are the
   hyperparameters, the others are listed as changing nothing. A field every variation of which
   the config or the model refuses is listed with the refusal.
2. **Components.** For each template (:func:`paramcount.derive.probe.fold`), its *multiplicity*
   (weights it names: L, L − first_k_dense_replace, L // interval, 0 where a flag removes it)
   and each dimension, with the fields whose variation changed it.
3. **Fits.** Builds at random small values of the hyperparameters (layer counts kept in the
   order the base config has them; widths half the time keeping the base's divisibilities); each
   component is fitted exactly (:mod:`paramcount.derive.fit`) and checked on every build,
   including the base build at full size. A refusal that one divisibility explains becomes a
   recorded constraint. What does not fit is named with its reason.
"""

from __future__ import annotations

import contextlib
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from paramcount.derive import fit as fitting
from paramcount.derive.probe import Built, DeriveError, Source
from paramcount.derive.refusals import constraints

__all__ = ["Derivation", "Template", "derive"]

SEED = "paramcount-derive-1"
NICE = (2, 4, 6, 8, 12, 16, 24, 32, 48, 64)
# PretrainedConfig's own switches: never a weight's shape
_GENERIC = {"architectures", "dtype", "problem_type", "id2label", "label2id",
            "output_hidden_states", "output_attentions", "return_dict", "chunk_size_feed_forward",
            "is_encoder_decoder", "use_cache", "output_router_logits", "use_return_dict",
            "torchscript", "is_decoder", "add_cross_attention", "tie_encoder_decoder"}


@dataclass(frozen=True)
class Template:
    name: str  # model.layers.*.self_attn.q_proj.weight
    role: str  # trainable, frozen or buffer
    mult: fitting.Poly
    dims: tuple[fitting.Poly, ...]


@dataclass
class Derivation:
    model_type: str
    cls: str
    versions: dict[str, str]
    fields: dict[str, int]  # hyperparameter -> its value at the base config (flags 0/1)
    flags: tuple[str, ...]
    inert: tuple[str, ...]  # varied, changed no weight
    unvaried: dict[str, str] = field(default_factory=dict)  # field -> why it was not varied
    constraints: list[tuple[str, str, str]] = field(default_factory=list)  # (op, a, b)
    templates: list[Template] = field(default_factory=list)
    failures: list[tuple[str, str]] = field(default_factory=list)  # (what, reason)
    explicit: dict[str, Any] = field(default_factory=dict)  # every varied field's base value
    builds: int = 0

    def count(self, values: Mapping[str, int]) -> dict[str, int]:
        """Parameters by role (trainable, frozen, buffer) at ``values`` (missing: the base)."""
        point = {**self.fields, **values}
        out = {"trainable": 0, "frozen": 0, "buffer": 0}
        for t in self.templates:
            n = fitting.evaluate(t.mult, point)
            out[t.role] += n * math.prod(fitting.evaluate(d, point) for d in t.dims)
        return out

    @property
    def complete(self) -> bool:
        return not self.failures


def _first_line(exc: BaseException) -> str:
    if type(exc).__name__.endswith("ValidationError") and exc.__cause__ is not None:
        exc = exc.__cause__  # a validator's own message, not its wrapper's (huggingface_hub's)
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:200]}"


def _changes(a: Built, b: Built) -> set[tuple[str, Any]]:
    """Components that differ between two builds: (template, "mult") or (template, dim)."""
    out: set[tuple[str, Any]] = set()
    for t in a.keys() | b.keys():
        x, y = a.get(t), b.get(t)
        if x is None or y is None:
            out.add((t, "mult"))
            continue
        if x.count != y.count:
            out.add((t, "mult"))
        if len(x.shape) != len(y.shape):
            out |= {(t, i) for i in range(max(len(x.shape), len(y.shape)))}
        else:
            out |= {(t, i) for i, (p, q) in enumerate(zip(x.shape, y.shape, strict=True))
                    if p != q}
    return out


class _Run:
    def __init__(self, src: Source):
        self.src = src
        self.builds = 0

    def build(self, overrides: Mapping[str, Any]) -> Built:
        self.builds += 1
        return self.src.build(overrides)

    def try_build(self, overrides: Mapping[str, Any]) -> Built | str:
        try:
            return self.build(overrides)
        except DeriveError:
            raise
        except Exception as exc:  # a validator's or the model's refusal: data, not a crash
            return _first_line(exc)


def _candidates(src: Source, values: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    init = src.init_fields()
    if init is not None:  # and the keys the config gives (Phi-3's head_dim, read by the model)
        init = init | set(src.base)
    ints, flags = [], []
    for k, v in sorted(values.items()):
        if k in _GENERIC or k.endswith("token_id") or (init is not None and k not in init):
            continue
        if isinstance(v, bool):
            flags.append(k)
        elif isinstance(v, int):
            ints.append(k)
    return ints, flags


def _variations(v: int) -> list[int]:
    if v <= 0:
        return [1, 2]
    return [x for x in (2 * v, v + 1, v + 2, max(v // 2, 1), v - 1) if x != v and x >= 0]


def derive(src: Source, *, seed: str = SEED) -> Derivation:
    """Derive the parameter count of ``src``'s model as expressions in its config's fields."""
    run = _Run(src)
    try:
        base_cfg = src.config({})
    except DeriveError:
        raise
    except Exception as exc:
        raise DeriveError(f"the {src.model_type} config refuses its base values: "
                          f"{_first_line(exc)}") from None
    base = run.try_build({})
    if isinstance(base, str):
        raise DeriveError(f"{src.cls_name} does not build on the meta device at this config: "
                          f"{base}")
    full = src.values(base_cfg)
    init = src.init_fields()
    ints, flags = _candidates(src, full)
    # every field given explicitly, as the random builds give them: head_dim then stays
    # head_dim when num_attention_heads varies, rather than the class recomputing it
    explicit = {f: full[f] for f in ints + flags}
    # token ids are no shape, but a small random vocabulary must not refuse them (Phi-3's
    # padding_idx within the vocabulary)
    nulls = {k: None for k, v in full.items() if k.endswith("token_id")
             and type(v) is int and (init is None or k in init)}
    if isinstance(run.try_build({**explicit, **nulls}), dict):  # a class may insist on ints
        explicit.update(nulls)
    at = {**explicit, **_shrunk(run, base, full, ints)}
    values = {**full, **at}
    dep: dict[tuple[str, Any], set[str]] = {}
    tried: set[str] = set()
    unvaried: dict[str, str] = {}
    structural: set[str] = set()
    on: dict[str, Any] = {}  # flags that add templates, switched on together below

    def probe(fields: list[str], ref: Built, at: Mapping[str, Any]) -> None:
        for f in fields:
            v = values[f]
            tries = [not v] if isinstance(v, bool) else _variations(v)
            why = ""
            built = 0
            for t in tries:  # two variations that build: a floor (q_proj's heads·(hidden //
                if built == 2:  # heads) when heads doubles) may hide a field from one
                    break
                b = run.try_build({**at, f: t})
                if isinstance(b, str):
                    why = why or b
                    continue
                built += 1
                ch = _changes(ref, b)
                for c in ch:
                    dep.setdefault(c, set()).add(f)
                if any(c[1] == "mult" and c[0] in ref and c[0] in b for c in ch):
                    structural.add(f)  # a count, not a template appearing (hidden ≠ proj)
                if isinstance(v, bool) and b.keys() - ref.keys():
                    on[f] = not v
                tried.add(f)
            if not built:
                unvaried.setdefault(f, why)

    def dep_fields() -> set[str]:
        return {f for s in dep.values() for f in s}

    ref = run.build(at)
    probe(ints + flags, ref, at)
    alt = run.try_build({**at, **on}) if on else ref
    if isinstance(alt, dict) and on:
        new = alt.keys() - ref.keys()
        if new:
            before = {k: set(v) for k, v in dep.items()}
            probe([f for f in ints if f not in unvaried], alt, {**at, **on})
            # only the templates the switched-on flags add learn from these probes
            dep = {k: (v if k[0] in new else before.get(k, set()))
                   for k, v in dep.items() if k[0] in new or k in before}
    inert = sorted(tried - dep_fields())
    unvaried = {k: v for k, v in unvaried.items() if k not in tried}
    for k, v in sorted(full.items()):  # GPT-2's n_inner: 4·n_embd unless given
        if v is None and init is not None and k in init and not k.endswith("token_id") \
                and k not in _GENERIC:
            unvaried[k] = "None at this config: give it an integer to derive with it"
    hyper = sorted(dep_fields())
    d = Derivation(src.model_type, src.cls_name, _versions(), {
        f: int(full[f]) for f in hyper}, tuple(f for f in hyper if f in flags),
        tuple(inert), unvaried)
    d.explicit = explicit
    new = _fit_all(run, d, base, dep, structural & set(ints), explicit, random.Random(seed))
    if new:  # fields only a template the base lacks reads (Llama 4's intermediate_size_mlp)
        d.fields.update({f: int(full[f]) for f in sorted(new)})
        d.inert = tuple(f for f in d.inert if f not in new)
        kept = [c for c in d.constraints if c[0] == "divides"]  # each confirmed by a refusal
        d.constraints.clear()
        _fit_all(run, d, base, dep, structural & set(ints), explicit, random.Random(seed))
        d.constraints = list(dict.fromkeys(d.constraints + kept))
    d.builds = run.builds
    return d


SHRINK = 12  # layer counts above this are probed at this value (a build costs per layer)


def _shrunk(run: _Run, base: Built, values: Mapping[str, Any], ints: list[str]) -> dict:
    """Overrides that make the probing builds small: a field whose value is how many weights
    some template names (the layers) set to SHRINK, if the model then has the same templates."""
    counts = {o.count for o in base.values()}
    at = {f: SHRINK for f in ints if values[f] > SHRINK and values[f] in counts}
    if not at:
        return {}
    small = run.try_build(at)
    return at if isinstance(small, dict) and small.keys() == base.keys() else {}


def _versions() -> dict[str, str]:
    from paramcount import isolate

    if isolate.side() == "keras":  # a Keras builder's derivation: torch is never imported here
        from paramcount.derive.keras_source import versions

        return versions()
    out = {}
    for lib in ("torch", "transformers"):
        with contextlib.suppress(ImportError):  # derive needs both; a builder, torch alone
            out[lib] = __import__(lib).__version__
    return out


def _sample(rng: random.Random, d: Derivation, structural: list[str], dims: list[str],
            structured: bool, same: bool) -> dict[str, int]:
    """Small random values: layer counts in the base's order; widths dividing as at the base
    (``structured``; equal ones equal too with ``same``) or at random."""
    point: dict[str, int] = {}
    lo = {f: 0 if d.fields[f] == 0 else 1 for f in structural}
    drawn = sorted(rng.randint(0, 10) for _ in structural)
    prev = 0
    for f, v in zip(structural, drawn, strict=True):  # the base's order kept
        prev = max(v, lo[f], prev)
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
    for f in d.flags:
        point[f] = rng.randint(0, 1)
    return point


def _fit_all(run: _Run, d: Derivation, base: Built, dep, structural: set[str],
             values: Mapping[str, Any], rng: random.Random) -> set[str]:
    """Fit every template; or, where a probe finds fields that change no weight at the base
    but change a template it lacks, return them (the caller refits with them)."""
    flags = set(d.flags)
    order = sorted(structural, key=lambda f: (d.fields[f], f))
    dims = sorted((set(d.fields) - structural - flags), key=lambda f: (d.fields[f], f))
    widest = max((len(s) for s in dep.values()), default=0)
    monos = sum(math.comb(widest + 1, k) for k in range(fitting.MAX_DEGREE + 1))
    need = min(160, 2 * monos + 12)
    samples: list[tuple[dict[str, int], Built]] = []
    refused: list[tuple[dict[str, int], str]] = []
    for i in range(need * 6):
        if len(samples) >= need:
            break
        point = _sample(rng, d, order, dims, structured=i % 3 != 2, same=i % 3 == 0)
        over = {**values, **{k: (bool(v) if k in flags else v) for k, v in point.items()}}
        b = run.try_build(over)
        (refused.append((point, b)) if isinstance(b, str) else samples.append((point, b)))
    if len(samples) < need // 2:
        why = refused[0][1] if refused else "no build"
        raise DeriveError(f"{d.cls}: too few random configurations build ({len(samples)} of "
                          f"{len(samples) + len(refused)}); the first refusal: {why}")
    constraints(run, d, samples, refused, order, values)
    base_point = dict(d.fields)
    templates = sorted(set().union(*(b.keys() for _, b in samples)) | base.keys())
    new = _probe_absent(run, d, templates, dep, samples, values)
    if new:
        return new
    for t in templates:
        obs = [(p, b.get(t)) for p, b in samples] + [(base_point, base.get(t))]
        roles = {o.role for _, o in obs if o is not None}
        if len(roles) != 1:
            d.failures.append((t, "its weights are parameters in some builds, buffers in others"))
            continue
        role = roles.pop()
        allf = sorted({f for (tt, _), s in dep.items() if tt == t for f in s})
        mult = _fit(dep.get((t, "mult"), set()), sorted(set(allf) | structural), d,
                    [(p, o.count if o else 0) for p, o in obs])
        present = [(p, o) for p, o in obs if o is not None]
        ranks = {len(o.shape) for _, o in present}
        if mult is None:
            d.failures.append((t, "how many weights it names is no such expression of the "
                                  "fields (" + ", ".join(allf) + ")"))
            continue
        if len(ranks) != 1 or any(-1 in o.shape for _, o in present):
            d.failures.append((t, "its shape differs between layers or builds in rank"))
            continue
        shapes = []
        for i in range(ranks.pop()):
            e = _fit(dep.get((t, i), set()), allf, d, [(p, o.shape[i]) for p, o in present])
            if e is None:
                d.failures.append((t, f"dimension {i} is no such expression of the fields ("
                                      + ", ".join(allf) + ")"))
                break
            shapes.append(e)
        else:
            d.templates.append(Template(t, role, mult, tuple(shapes)))
    return set()


def _probe_absent(run: _Run, d: Derivation, templates: list[str], dep, samples,
                  values: Mapping[str, Any]) -> set[str]:
    """Templates no probe saw (Qwen3-Next's dense MLP, absent where every layer is sparse):
    each width varied alone from a random build that has them."""
    unseen = [t for t in templates if not any(k[0] == t and k[1] != "mult" for k in dep)]
    flags = set(d.flags)
    widths = [f for f in d.fields if f not in flags]
    widths += [f for f in d.inert if type(values.get(f)) is int]
    found: set[str] = set()
    done: set[str] = set()
    for t in unseen:
        if t in done:
            continue
        at = next(((p, b) for p, b in samples if t in b), None)
        if at is None:
            continue
        p, ref = at
        group = [u for u in unseen if u in ref and u not in done]
        done |= set(group)
        over = {**values, **{k: (bool(v) if k in flags else v) for k, v in p.items()}}
        for f in widths:
            at_f = p[f] if f in p else int(values[f])  # a field that changes no weight: its base
            for v in (at_f + 1, 2 * at_f + 2):
                b = run.try_build({**over, f: v})
                if isinstance(b, str):
                    continue
                for c in _changes(ref, b):
                    if c[0] in group:
                        dep.setdefault(c, set()).add(f)
                        found.add(f)
    return found - set(d.fields)


def _fit(first: set[str], wider: list[str], d: Derivation, samples) -> fitting.Poly | None:
    ints = [f for f in d.fields if f not in d.flags]
    equal = [(a, b) for a in ints for b in ints if a < b and d.fields[a] == d.fields[b]]
    found = fitting.fit(sorted(first), ints, samples, equal)
    if found is None and set(wider) - first and len(wider) <= 8:
        found = fitting.fit(wider, ints, samples, equal)
    with_flags = sorted(set(wider) | set(d.flags))
    if found is None and d.flags and len(with_flags) <= 8:
        found = fitting.fit(with_flags, ints, samples, equal)
    return found
