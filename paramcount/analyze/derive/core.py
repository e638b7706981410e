"""Deriving a model's parameter count from its builds: fields, templates, exact expressions.

1. **Fields.** Every integer field and flag the config class takes is varied alone from the
   base config; those that change a weight's shape or how many weights a template names are the
   hyperparameters, the others are listed as changing nothing. A field every variation of which
   the config or the model refuses is listed with the refusal.
2. **Components.** For each template (:func:`paramcount.analyze.derive.probe.fold`), its *multiplicity*
   (weights it names: L, L − first_k_dense_replace, L // interval, 0 where a flag removes it)
   and each dimension, with the fields whose variation changed it.
3. **Fits.** Builds at random small values of the hyperparameters (layer counts kept in the
   order the base config has them; widths half the time keeping the base's divisibilities); each
   component is fitted exactly (:mod:`paramcount.analyze.derive.fit`) and checked on every build,
   including the base build at full size. A refusal that one divisibility explains becomes a
   recorded constraint. What does not fit is named with its reason.

What a derivation says is what its builds showed (issue 32): a field is one that changes no
weight only if a variation of it that the config read back changed built the same weights; one
no variation of which built another model is *held* at its value (:attr:`Derivation.held`); an
order is a constraint only where builds breaking it are refused
(:mod:`~paramcount.analyze.derive.claims`); a tie only where the build shares the weight.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from paramcount.analyze.derive import deadline, folding, inert_where, layers, prepare
from paramcount.analyze.derive import fit as fitting
from paramcount.analyze.derive.claims import unread, untied
from paramcount.analyze.derive.given import given_back
from paramcount.analyze.derive.probe import Built, DeriveError, Source, versions
from paramcount.analyze.derive.templates import Template, changes, fit_all

__all__ = ["Derivation", "Run", "Template", "derive", "first_line"]

SEED = "paramcount-derive-1"
# PretrainedConfig's own switches: never a weight's shape
_GENERIC = {"architectures", "dtype", "problem_type", "id2label", "label2id",
            "output_hidden_states", "output_attentions", "return_dict", "chunk_size_feed_forward",
            "is_encoder_decoder", "use_cache", "output_router_logits", "use_return_dict",
            "torchscript", "is_decoder", "add_cross_attention", "tie_encoder_decoder"}


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
    # per-layer lists whose counts are fields: count name -> (list, its layer count, the kind
    # counted; "" for how many of a list of indices are below it) (paramcount.analyze.derive.layers)
    counts: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    builds: int = 0
    # orders of the layer counts a build beyond builds, and differs from the formula: where the
    # formula was derived (and proven), not what a build requires (:mod:`.claims`)
    domain: list[tuple[str, str, str]] = field(default_factory=list)
    # templates a flag removes, beside one of the same shape, that the build with the flag on
    # does not share with it: removed, not tied (StableLM's parallel residual's second norm)
    untied: list[str] = field(default_factory=list)
    # fields the model insists are equal to a hyperparameter, which follow it: field -> it
    equal: dict[str, str] = field(default_factory=dict)
    # orders a build requires only where a flag is set: (op, a, b, flag) (:func:`.claims.minimums`)
    conditional: list[tuple[str, str, str, str]] = field(default_factory=list)
    # fields every accepted random build of the fit kept at their base value (not stored: what
    # :func:`.claims.unread` holds where no fitted expression reads one)
    steady: set[str] = field(default_factory=set)

    @property
    def held(self) -> dict[str, int]:
        """Fields the derivation could not vary (every variation refused, or read back
        unchanged), at their base values: the formula is exact there only."""
        return {f: int(self.explicit[f]) for f in sorted(self.unvaried)
                if type(self.explicit.get(f)) in (int, bool)}

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


def first_line(exc: BaseException) -> str:
    """``Type: message`` on one line (at most 200 characters of it): a refusal as data."""
    if type(exc).__name__.endswith("ValidationError") and exc.__cause__ is not None:
        exc = exc.__cause__  # a validator's own message, not its wrapper's (huggingface_hub's)
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:200]}"


class Run:
    """One derivation's builds of ``src``, counted; :meth:`try_build` turns a refusal (a config
    validator's, the model's) into its first line, the data the fit and the constraints read
    (:mod:`~paramcount.analyze.derive.templates`, :mod:`~paramcount.analyze.derive.refusals`)."""

    def __init__(self, src: Source):
        self.src = src
        self.builds = 0

    def build(self, overrides: Mapping[str, Any]) -> Built:
        deadline.check(f"building {self.src.cls_name} (build {self.builds + 1})")
        self.builds += 1
        return self.src.build(overrides)

    def try_build(self, overrides: Mapping[str, Any]) -> Built | str:
        try:
            return self.build(overrides)
        except DeriveError:
            raise
        except Exception as exc:  # a validator's or the model's refusal: data, not a crash
            return first_line(exc)

    def reads(self, overrides: Mapping[str, Any], f: str) -> Any:
        """Field ``f`` as the config built with ``overrides`` reads it back (what a build
        with them was given after the config's own rewriting: Dory halves its layer counts)."""
        try:
            return self.src.values(self.src.config(overrides)).get(f)
        except Exception:  # (the build with them was accepted: the config was too)
            return None


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
    run = Run(src)
    try:
        base_cfg = src.config({})
    except DeriveError:
        raise
    except Exception as exc:
        raise DeriveError(f"the {src.model_type} config refuses its base values: "
                          f"{first_line(exc)}") from None
    base = run.try_build({})
    if isinstance(base, str):
        raise DeriveError(f"{src.cls_name} does not build on the meta device at this config: "
                          f"{base}")
    split = set(getattr(src, "split", ()))  # templates split by layer kind so far
    full = src.values(base_cfg)
    init = src.init_fields()
    ints, flags = _candidates(src, full)
    counted = [n for n in layers.names(getattr(src, "lists", ())) if n in full]
    ints += [n for n in counted if n not in ints]  # a per-layer list's counts (layers.py)
    # every field given explicitly, as the random builds give them: head_dim then stays
    # head_dim when num_attention_heads varies, rather than the class recomputing it
    explicit = {f: full[f] for f in ints + flags}
    ruled = given_back(run, src, base_cfg, base, full, explicit)
    # given back as None, or as a value the config computes from the others: the config's rule
    ints = [f for f in ints if full[f] is not None and f not in ruled]
    # token ids are no shape, but a small random vocabulary must not refuse them (Phi-3's
    # padding_idx within the vocabulary)
    nulls = {k: None for k, v in full.items() if k.endswith("token_id")
             and type(v) is int and (init is None or k in init)}
    if isinstance(run.try_build({**explicit, **nulls}), dict):  # a class may insist on ints
        explicit.update(nulls)
    at = {**explicit, **_shrunk(run, base, full, ints, getattr(src, "lists", ()))}
    values = {**full, **at}
    dep: dict[tuple[str, Any], set[str]] = {}
    tried: set[str] = set()
    unvaried: dict[str, str] = {**getattr(src, "pins", {}), **ruled}  # (prepare.pinned)
    structural: set[str] = set()
    on: dict[str, Any] = {}  # flags that add templates, switched on together below
    reshape: dict[str, Any] = {}  # flags that reshape a template, switched with them if it builds
    flipped: set[str] = set()  # the templates they reshape: those learn from both sides

    def probe(fields: list[str], ref: Built, at: Mapping[str, Any]) -> None:
        for f in fields:
            v = values[f]
            tries = [not v] if isinstance(v, bool) else _variations(v)
            why = ""
            built = 0
            moved = False  # whether a variation that built changed a weight
            appeared: dict[str, set[int]] = {}
            for t in tries:  # two variations that build: a floor (q_proj's heads·(hidden //
                # heads) when heads doubles) may hide a field from one; where neither changed a
                # weight, the rest too: a layer pattern's period or offset changes no layer
                # kind at most of its values (Jamba's attention every 8th layer from the 4th,
                # one of the probes' 12 layers at periods 16 and 9, two at 7)
                if built >= 2 and moved:
                    break
                b = run.try_build({**at, f: t})
                if isinstance(b, str):
                    why = why or b
                    continue
                ch = changes(ref, b)
                if not ch and run.reads({**at, f: t}, f) == run.reads(at, f):
                    # the config read it back as before (Dory's layers + 1, halved): the base
                    # model again, which says nothing of whether the field changes a weight
                    why = why or f"{t} is read back as the base's {run.reads(at, f)}"
                    continue
                built += 1
                moved = moved or bool(ch)
                for c in ch:
                    dep.setdefault(c, set()).add(f)
                if any(c[1] == "mult" and c[0] in ref and c[0] in b for c in ch):
                    structural.add(f)  # a count, not a template appearing (hidden ≠ proj)
                for u in b.keys() - ref.keys():
                    appeared.setdefault(u, set()).add(b[u].count)
                if isinstance(v, bool) and b.keys() - ref.keys():
                    on[f] = not v
                reshaped = {c[0] for c in ch if c[1] != "mult" and c[0] in ref and c[0] in b}
                if isinstance(v, bool) and reshaped:  # Laguna's gating: g_proj heads or heads·d
                    reshape[f] = not v
                    flipped.update(reshaped)
                tried.add(f)
            if not built:
                unvaried.setdefault(f, why)
            elif isinstance(v, bool) and isinstance(b, dict):  # (b: the flag flipped)
                _apart(run, f, not v, at, ref, b, {**values, **at}, dep, ints, apart)
            # a template absent at the base whose count follows the field: a layer count
            # (DeepSeek-V2's first_k_dense_replace = 0, its dense layers 1, then 2)
            if type(v) is int and any(len(n) > 1 for n in appeared.values()):
                structural.add(f)

    def dep_fields() -> set[str]:
        return {f for s in dep.values() for f in s}

    apart: dict = {}  # (a probe's reference, field) -> a variation of it that builds, its build

    ref = run.build(at)
    seen = set(getattr(src, "split", ()))
    probe(ints + flags, ref, at)
    if set(getattr(src, "split", ())) - seen:  # a probe split a template by layer kind
        # (Inkling 2's attention, its sliding heads set apart): every later build's templates
        # differed from the reference's, so each field seemed to change them; probed again
        # against the reference observed split
        ref = run.build(at)
        for gone in (dep, on, reshape, apart):
            gone.clear()
        tried.clear()
        structural.clear()
        flipped.clear()
        unvaried.clear()
        unvaried.update({**getattr(src, "pins", {}), **ruled})
        probe(ints + flags, ref, at)
    # fields the model insists are equal (SqueezeBERT's embedding_size, hidden_size): the first
    # the config lists is varied, the others follow it (prepare.equal_fields)
    refused = [f for f in ints if " read back " not in unvaried.get(f, " read back ")]
    eq = prepare.equal_fields(run.try_build, at, refused, list(full), ref) \
        if hasattr(src, "equal") else []
    if eq:
        src.equal = tuple(eq)
        probe(sorted({b for _, b in eq}), ref, at)
        unvaried = {k: v for k, v in unvaried.items() if k not in tried}
    alt = run.try_build({**at, **on, **reshape}) if reshape else ref
    if isinstance(alt, dict) and reshape:
        on.update(reshape)
    else:
        flipped.clear()
        alt = run.try_build({**at, **on}) if on else ref
    if isinstance(alt, dict) and on:
        new = alt.keys() - ref.keys()
        if new or flipped:
            before = {k: set(v) for k, v in dep.items()}
            # the other flags too: a bias only a flag adds may follow another flag's shape
            # (Falcon's query_key_value.bias: multi_query, new_decoder_architecture)
            probe([f for f in ints if f not in unvaried] + [f for f in flags if f not in on],
                  alt, {**at, **on})
            for f in on:  # and each switched flag back, where two fields it swaps are apart
                back = run.try_build({**at, **on, f: values[f]})
                if isinstance(back, dict):
                    _apart(run, f, values[f], {**at, **on}, alt, back, {**values, **at, **on},
                           dep, ints, apart)
            # only the templates the switched flags add or reshape learn from these probes
            learn = new | flipped
            dep = {k: (v if k[0] in learn else before.get(k, set()))
                   for k, v in dep.items() if k[0] in learn or k in before}
    inert = sorted(tried - dep_fields())
    unvaried = {k: v for k, v in unvaried.items() if k not in tried}
    # one that changes a weight only within a tail the base lacks: held, not inert
    tailed = inert_where.tailed(run, src, at, inert, _variations)
    inert = [f for f in inert if f not in tailed]
    unvaried.update(tailed)
    # a tail's count no probe could vary (none where the base has no tail: Gemma 4's) is held
    held = {n for s in getattr(src, "lists", ()) for n in s.tail_names if n in unvaried}
    for n in set(counted) - dep_fields() - held:  # a count that changes no weight: the config's
        explicit.pop(n, None)  # own list then (or 0 beside one that does, never its layers)
    for k, v in sorted(full.items()):  # GPT-2's n_inner: 4·n_embd unless given
        if v is None and init is not None and k in init and not k.endswith("token_id") \
                and k not in _GENERIC:
            unvaried[k] = "None at this config: give it an integer to derive with it"
    hyper = sorted(dep_fields())
    d = Derivation(src.model_type, src.cls_name, versions(), {
        f: int(full[f]) for f in hyper}, tuple(f for f in hyper if f in flags),
        tuple(inert), unvaried)
    d.explicit = explicit
    d.equal = {a: b for a, b in eq if b in d.fields}
    d.unvaried = {k: v for k, v in d.unvaried.items() if k not in d.equal}
    deadline.note(d.cls, d.failures)  # what a refusal at the budget says was found
    # a template later builds split by layer kind, one width in each at the base
    # (BailingHybrid's o_proj, Dots 3's k_rope_only_layernorm): the base observed again
    if set(getattr(src, "split", ())) - split:
        base = run.build({})
    d.counts = {n: c for s in getattr(src, "lists", ()) for n, c in s.counted().items()
                if n in d.fields}
    new = fit_all(run, d, base, dep, structural & set(ints), explicit, random.Random(seed))
    if new:  # fields only a template the base lacks reads (Llama 4's intermediate_size_mlp)
        d.fields.update({f: int(full[f]) for f in sorted(new)})
        d.inert = tuple(f for f in d.inert if f not in new)
        kept = [c for c in d.constraints if c[0] == "divides"]  # each confirmed by a refusal
        d.constraints.clear()
        fit_all(run, d, base, dep, structural & set(ints), explicit, random.Random(seed))
        d.constraints = list(dict.fromkeys(d.constraints + kept))
    unread(d)  # a field the fit's builds never varied, which the formula does not read
    d.untied = untied(run, d, at)
    d.builds = run.builds
    return d


def _apart(run: Run, f: str, to: bool, at: Mapping[str, Any], ref: Built, flip: Built,
           now: Mapping[str, Any], dep: dict, ints: list[str], cache: dict) -> None:
    """A flag that swaps two fields equal at the base (Marian's share_encoder_decoder_embeddings:
    its LM head vocab_size wide, else decoder_vocab_size wide) changes nothing that a flip there
    shows of what it swaps: flipped again where they are apart (the second at its first
    variation that builds), what changes there and not at the base reads the flag and both
    fields. Two fields alone at their value (not three heads, layers and KV heads at 32), one
    of which changes a weight; ``flip``: ``ref``'s build with the flag flipped."""
    read = {g for s in dep.values() for g in s}
    seen = changes(ref, flip)
    alone = Counter(now[g] for g in ints)
    for a, b in itertools.combinations(sorted(ints), 2):
        if not (now[a] == now[b] and type(now[a]) is int and now[a] > 1 and {a, b} & read
                and alone[now[a]] == 2):
            continue
        if (id(ref), b) not in cache:
            cache[id(ref), b] = next(((w, x) for w in _variations(now[b])
                                      if isinstance(x := run.try_build({**at, b: w}), dict)), None)
        if cache[id(ref), b] is None:
            continue
        w, there = cache[id(ref), b]
        other = run.try_build({**at, b: w, f: to})
        if isinstance(other, dict):
            for c in changes(there, other) - seen:
                dep.setdefault(c, set()).update((f, a, b))


SHRINK = 12  # layer counts above this are probed at this value (a build costs per layer)


def _shrunk(run: Run, base: Built, values: Mapping[str, Any], ints: list[str],
            lists=()) -> dict:
    """Overrides that make the probing builds small: a field whose value is how many weights
    some template names (the layers) set to SHRINK, if the model then has the same templates;
    a per-layer list's counts, and another layer count below it, scaled with its layers (at
    least one of each kind)."""
    counts = {o.count for o in base.values()}
    counts |= folding.keys_per_holder({k: o.count for k, o in base.items()})  # (experts)
    scaled = set(layers.names(lists))
    at = {f: SHRINK for f in ints if values[f] > SHRINK and values[f] in counts
          and f not in scaled}
    if not at:
        return {}
    for s in lists:
        if s.length in at:
            at.update({n: max(1, values[n] * SHRINK // values[s.length]) for n in s.names
                       if values.get(n)})
    # another layer count below a shrunk one, scaled with it (Gemma 3n's last 15 of 35 layers
    # sharing keys and values: 15 of 12 would share all, and the probes of it would see none)
    for f in layers.layer_counts(values):
        if f not in at and f not in scaled:
            n = min((g for g in at if SHRINK < values[f] < values[g]), key=lambda g: values[g],
                    default=None)
            if n is not None:
                at[f] = max(1, values[f] * SHRINK // values[n])
    small = run.try_build(at)
    return at if isinstance(small, dict) and small.keys() == base.keys() else {}
