"""Every template of a derivation fitted from random builds (step 3 of :mod:`paramcount.analyze.derive.core`).

Builds at random small values of the hyperparameters (layer counts kept in the order the base
config has them; widths half the time keeping the base's divisibilities); each component (a
template's multiplicity, each dimension) is fitted exactly (:mod:`paramcount.analyze.derive.fit`) and
checked on every build, including the base build at full size. Templates no probe saw (present
only away from the base) are probed from a random build that has them.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from paramcount.analyze.derive import deadline
from paramcount.analyze.derive import fit as fitting
from paramcount.analyze.derive.claims import check_orders, gaps, minimums
from paramcount.analyze.derive.probe import Built, DeriveError
from paramcount.analyze.derive.refusals import constraints
from paramcount.analyze.derive.sampling import sample, steps

if TYPE_CHECKING:
    from paramcount.analyze.derive.core import Derivation, Run

__all__ = ["Template", "changes", "fit_all"]

@dataclass(frozen=True)
class Template:
    name: str  # model.layers.*.self_attn.q_proj.weight
    role: str  # trainable, frozen or buffer
    mult: fitting.Poly
    dims: tuple[fitting.Poly, ...]


def changes(a: Built, b: Built) -> set[tuple[str, Any]]:
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


def fit_all(run: Run, d: Derivation, base: Built, dep, structural: set[str],
             values: Mapping[str, Any], rng: random.Random) -> set[str]:
    """Fit every template; or, where a probe finds fields that change no weight at the base
    but change a template it lacks, return them (the caller refits with them)."""
    _asked.clear()
    flags = set(d.flags)
    lists = [s for s in run.src.lists if set(s.names) & set(d.fields)] \
        if hasattr(run.src, "lists") else []
    counted = {n for s in lists for n in s.names}
    order = sorted(structural - counted, key=lambda f: (d.fields[f], f))
    dims = sorted((set(d.fields) - structural - flags - counted),
                  key=lambda f: (d.fields[f], f))
    widest = max((len(s) for s in dep.values()), default=0)
    monos = sum(math.comb(widest + 1, k) for k in range(fitting.MAX_DEGREE + 1))
    need = min(160, 2 * monos + 12)
    samples: list[tuple[dict[str, int], Built]] = []
    refused: list[tuple[dict[str, int], str]] = []

    def draw(step: Mapping[str, int]) -> None:
        for i in range(need * 6):
            if len(samples) >= need:
                break
            point = sample(rng, d, order, dims, structured=i % 3 != 2, same=i % 3 == 0,
                           lists=lists, gaps=i % 2 == 1, multiple=step)
            over = {**values, **{k: (bool(v) if k in flags else v) for k, v in point.items()}}
            b = run.try_build(over)
            (refused.append((point, b)) if isinstance(b, str) else samples.append((point, b)))

    draw({})
    # where too few built, the layer counts drawn again as multiples of the fields that change
    # no weight and divide them at the base (sampling.steps: a validator's divisibility)
    if len(samples) < need // 2 and (step := steps(d, order)):
        draw(step)
    if len(samples) < need // 2:
        why = refused[0][1] if refused else "no build"
        raise DeriveError(f"{d.cls}: too few random configurations build ({len(samples)} of "
                          f"{len(samples) + len(refused)}); the first refusal: {why}")
    # a list's count at most its layers, in the base config's order among the layer counts
    # (a ≤ L and b ≤ L are two cones, no one substitution: the proof covers the base's side);
    # a list counting several kinds, their sum (the remainder's count is the rest)
    one = [n for s in lists if not s.tail and len(c := [n for n in s.names if n in d.fields])
           == 1 for n in c if all(n in p for p, _ in samples)]
    chain = sorted([*order, *one], key=lambda f: (d.fields[f], f))
    constraints(run, d, samples, refused, chain, values)
    for s in lists:  # one equal to the next at the base: at most it too
        for n in (n for n in s.names if n in one):
            if not any(c[0] == "<=" and c[1] == n for c in d.constraints):
                d.constraints.append(("<=", n, next(iter(chain[chain.index(n) + 1:]), s.length)))
    for s in lists:
        if s.tail:  # those before the tail with it at most the layers; those within, it
            _tail_orders(d, s)
        elif len(c := [n for n in s.names if n in d.fields]) > 1:
            d.constraints.append(("<=", "+".join(c), s.length))
    base_point = dict(d.fields)
    templates = sorted(set().union(*(b.keys() for _, b in samples)) | base.keys())
    new = _probe_absent(run, d, templates, dep, samples, values)
    if new:
        return new
    module: dict[str, set[str]] = {}  # the fields each module's weights' dimensions read
    for (tt, what), s in dep.items():
        if what != "mult":
            module.setdefault(_module(tt), set()).update(s)
    pending, tried = list(templates), set[tuple[str, str]]()
    while pending:
        t = pending.pop(0)
        obs = [(p, b.get(t)) for p, b in samples] + [(base_point, base.get(t))]
        roles = {o.role for _, o in obs if o is not None}
        if len(roles) != 1:
            d.failures.append((t, "its weights are parameters in some builds, buffers in others"))
            continue
        role = roles.pop()
        allf = sorted({f for (tt, _), s in dep.items() if tt == t for f in s})
        counted_in = sorted(set(allf) | structural)  # (the layer counts: a probe of one may
        counts = [(p, o.count if o else 0) for p, o in obs]  # keep this count, 12 → 24
        first = dep.get((t, "mult"), set())  # keeping Switch's 3 sparse)
        mult = _fit(first, counted_in, d, counts)
        # a kind's count with the layers it is counted among: a weight every layer but the
        # first has (Inkling 2's attention_input) is one fewer where the kind takes layer 0
        among = {s.length for s in lists if set(s.names) & first and s.length in d.fields}
        if mult is None and among - first:
            mult = _fit(first | among, counted_in, d, counts)
        # or with the layer counts beside them: one the probes at the base did not see move it
        # (Zamba 2's num_mem_blocks, which changes its adapters only where its blocks are untied)
        wide = first | among | structural
        if mult is None and wide - first - among and len(wide) <= fitting.MAX_FIELDS:
            mult = _fit(wide, counted_in, d, counts)
        present = [(p, o) for p, o in obs if o is not None]
        ranks = {len(o.shape) for _, o in present}
        if mult is None:
            d.failures.append((t, "how many weights it names is no such expression of the "
                                  "fields (" + ", ".join(counted_in) + ")"))
            continue
        odd = _undecided(mult, [p for p, _ in obs], tried)  # (builds without it count, as 0)
        if odd and _settle(run, d, "", odd, [p for p, _ in obs[:-1]], samples, values):
            tried.add(odd)
            pending.insert(0, t)
            continue
        if len(ranks) != 1 or any(-1 in o.shape for _, o in present):
            d.failures.append((t, "its shape differs between layers or builds in rank"))
            continue
        shapes = []
        for i in range(ranks.pop()):
            e = _fit(dep.get((t, i), set()), allf, d, [(p, o.shape[i]) for p, o in present],
                     module.get(_module(t), set()))
            drawn = [p for p, _ in present if p is not base_point]  # the random builds
            if e is None:
                if (t, "") not in tried and _off_multiples(run, d, t, allf, drawn, samples,
                                                           values):
                    tried.add((t, ""))
                    pending.insert(0, t)  # fitted again with builds off the multiples
                    break
                d.failures.append((t, f"dimension {i} is no such expression of the fields ("
                                      + ", ".join(allf) + ")"
                                      + _floats_read(run, d, t, i, present, values)))
                break
            odd = _undecided(e, [p for p, _ in present], tried)
            if odd and _settle(run, d, t, odd, drawn, samples, values):
                tried.add(odd)
                pending.insert(0, t)  # fitted again with a build that tells them apart
                break
            shapes.append(e)
        else:
            d.templates.append(Template(t, role, mult, tuple(shapes)))
    d.steady = {f for f in d.fields if all(p.get(f, d.fields[f]) == d.fields[f]
                                           for p, _ in samples)}
    check_orders(run, d, samples, values)  # each order stated only where builds need it
    gaps(run, d, refused, values)  # and an order a refusal needs wider, with its gap
    minimums(run, d, samples, refused, chain, values)  # and a layer count a flag needs more of
    return set()


def _tail_orders(d: Derivation, s) -> None:
    """A list with a tail (:attr:`paramcount.analyze.derive.layers.Spec.tail_names`): the counts
    before the tail and the tail at most the layers, in place of the orders of each below the
    layers (which it implies, and which would leave the layers no single field to write the
    sum's as), and the counts within the tail at most it."""
    head = [n for n in s.head_names if n in d.fields]
    within = [n for n in s.tail_names if n in d.fields]
    if head:
        d.constraints[:] = [c for c in d.constraints if c[0] != "<=" or c[2] != s.length
                            or c[1] not in (s.tail, *head)]
        d.constraints.append(("<=", "+".join([*head, s.tail]), s.length))
    if within:
        d.constraints.append(("<=", "+".join(within), s.tail))


def _undecided(poly: fitting.Poly, points, tried: set) -> tuple[str, str] | None:
    """A floor of ``poly`` whose samples cannot tell it from another expression: by a constant k
    of a field a multiple of k at every point (``ffn_dim // 2`` or ``ffn_dim / 2``: Zaya's half
    of kv·head_dim), or by a field b of a field a ≤ b at every point, where ⌊a / b⌋ is [a = b]
    (LUKE's entity projection, present where entity_emb_size ≠ hidden_size, and every sample
    had entity_emb_size ≤ hidden_size). (a, k or b), else None."""
    for _, atoms in poly:
        for a in atoms:
            if not (isinstance(a, tuple) and a[0] == "floor" and isinstance(a[1], str)) \
                    or (a[1], a[2]) in tried:
                continue
            if a[2].isdigit() and all(p[a[1]] % int(a[2]) == 0 for p in points):
                return a[1], a[2]
            if not fitting.constant(a[2]) and all(p[a[1]] <= p[a[2]] for p in points):
                return a[1], a[2]
    return None


def _settle(run: Run, d: Derivation, t: str, odd: tuple[str, str], drawn: list, samples,
            values: Mapping[str, Any], n: int = 6) -> bool:
    """Add to ``samples`` builds that tell :func:`_undecided`'s floor apart, from random builds
    (``drawn``, up to ``n``: one alone may meet the other fields at values that fit by chance)
    that have template ``t`` (any, for a count: ``t`` ""); whether any built. By a constant:
    the field one above, so off the multiples it met; a field ``field`` must divide (a
    recorded constraint) moves with it, a multiple of the new value: Zaya's kv heads + 1
    divided no heads, one build of six was accepted, and a fit true at that one point alone
    was kept. By a field b: the field at 2·b, where the floor is 2 and [a = b] is 0."""
    field, by = odd
    flags = set(d.flags)
    added = 0
    for p in drawn[:n]:
        if not by.isdigit():
            point = {**p, field: 2 * p[by]}
        else:
            point = {**p, field: p[field] + 1}
            point.update({a: p[a] // p[field] * (p[field] + 1) for op, a, b in d.constraints
                          if op == "divides" and b == field and a in p and p[field]})
        over = {**values, **{f: (bool(v) if f in flags else v) for f, v in point.items()}}
        b = run.try_build(over)
        if isinstance(b, dict) and (not t or t in b):
            samples.append((point, b))
            added += 1
    return added > 0


def _off_multiples(run: Run, d: Derivation, t: str, fields: list[str], drawn: list, samples,
                   values: Mapping[str, Any]) -> bool:
    """Builds that tell a floor from its field, where the random builds rarely could: each of
    ``fields`` that divides another at the base one above (:func:`_settle`) at up to twelve
    random builds. Two-thirds of them keep the base's divisibilities, and two floors beside a
    flag (MobileBERT's heads·⌊width / heads⌋ of one of two widths) leave more monomials than
    the builds off the multiples decide; whether any built."""
    ints = [f for f in fields if f in d.fields and f not in d.flags]
    divisors = [f for f in ints if d.fields[f] > 1
                and any(g != f and d.fields[g] % d.fields[f] == 0 for g in ints)]
    added = [_settle(run, d, t, (f, "1"), drawn, samples, values, 12) for f in divisors]
    return any(added)


def _floats_read(run: Run, d: Derivation, t: str, i: int, present,
                 values: Mapping[str, Any]) -> str:
    """The config's fractional float fields that dimension ``i`` of ``t`` reads, named: a width
    computed in floating point (xLSTM's round_up(hidden_size·2.667, 64)) is no exact expression
    of the integer fields (int(3000·2.667) is 8000, not 8001). Each is doubled at a random build
    that has ``t``; "" if none changes the dimension."""
    try:
        floats = {k: v for k, v in run.src.values(run.src.config({})).items()
                  if type(v) is float and not v.is_integer() and k not in values}
    except Exception:  # the config is built at every probe: this one cannot refuse
        return ""
    at = next((p for p, _ in present if p != d.fields), None)
    if at is None or not floats or len(floats) > 16:
        return ""
    flags = set(d.flags)
    over = {**values, **{k: (bool(v) if k in flags else v) for k, v in at.items()}}
    ref = run.try_build(over)
    read = []
    for k, v in sorted(floats.items()):
        b = run.try_build({**over, k: 2 * v})
        if isinstance(ref, dict) and isinstance(b, dict) and t in ref and t in b \
                and b[t].shape[i:i + 1] != ref[t].shape[i:i + 1]:
            read.append(f"{k} = {v}")
    return "; it reads the float field " + ", ".join(read) + ", which no exact expression " \
        "of the integer fields gives" if read else ""


def _module(template: str) -> str:
    return template.split("@")[0].rsplit(".", 1)[0]


def _probe_absent(run: Run, d: Derivation, templates: list[str], dep, samples,
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
            # two variations that build; doubling and tripling keep the divisibilities a width
            # must meet (DeepSeek-V2's hidden_size by the heads), which ± 1 breaks
            built = 0
            for v in (at_f + 1, 2 * at_f + 2, 2 * at_f, 3 * at_f):
                if built == 2 or v == at_f:
                    break
                b = run.try_build({**over, f: v})
                if isinstance(b, str):
                    continue
                built += 1
                for c in changes(ref, b):
                    if c[0] in group:
                        dep.setdefault(c, set()).add(f)
                        found.add(f)
    return found - set(d.fields)


_asked: dict[tuple, fitting.Poly | None] = {}  # one derivation's fits, by their question


def _fitted(fields: list[str], ints: list[str], samples, equal) -> fitting.Poly | None:
    """:func:`fitting.fit`, asked once per question: the weights of one module ask the same
    of their counts (Inkling 2's twelve message gates, each no expression of the fields, took
    half of its fitting time asking it twelve times); under the derivation's budget."""
    deadline.check("fitting the weights' counts and shapes")
    key = (tuple(fields), tuple(ints), tuple((tuple(sorted(p.items())), y) for p, y in samples),
           tuple(equal))
    if key not in _asked:
        _asked[key] = fitting.fit(fields, ints, samples, equal)
    return _asked[key]


def _fit(first: set[str], wider: list[str], d: Derivation, samples,
         module: set[str] | None = None) -> fitting.Poly | None:
    """The expression of one component: in the fields its probes found, then every field of
    its template, then with every flag; then with the fields the dimensions of its module's
    weights read (a bias only one flag adds reads the flags its weight does: Falcon's qkv
    bias, whose probes ran with new_decoder_architecture switched on)."""
    ints = [f for f in d.fields if f not in d.flags]
    equal = [(a, b) for a in ints for b in ints if a < b and d.fields[a] == d.fields[b]]
    found = _fitted(sorted(first), ints, samples, equal)
    if found is None and set(wider) - first and len(wider) <= 8:
        found = _fitted(wider, ints, samples, equal)
    with_flags = sorted(set(wider) | set(d.flags))
    if found is None and d.flags and len(with_flags) <= 8:
        found = _fitted(with_flags, ints, samples, equal)
    beside = sorted(first | (module or set()))
    if found is None and set(beside) - first and len(beside) <= 8:
        found = _fitted(beside, ints, samples, equal)
    # a divisor the probes missed: heads·(hidden // heads) stays hidden at every variation of
    # heads that divides hidden (Moonshine's 8 heads of 288, varied to 16 and 9); each field
    # dividing one of the component's at the base is tried beside them
    near = sorted(set(first) | set(wider))
    for f in ints:
        if found is not None or len(near) >= fitting.MAX_FIELDS:
            break
        if f not in near and d.fields[f] > 1 and any(
                g in ints and d.fields[g] % d.fields[f] == 0 for g in near):
            found = _fitted([*near, f], ints, samples, equal)
    # or a field equal to the component at the base, with the flags: a flag that swaps in a
    # width equal there changes nothing a probe sees (BLT's tie_word_embeddings puts the LM
    # head, vocab_size 260 wide, in place of the encoder's 260-row embedding)
    at_base = next((y for p, y in samples if p == d.fields), None)
    near = sorted(set(near) | set(d.flags))
    for f in ints:
        if found is not None or len(near) >= fitting.MAX_FIELDS:
            break
        if f not in near and d.fields[f] == at_base:
            found = _fitted([*near, f], ints, samples, equal)
    # last, its own fields with the flags alone: a weight two flags decide together (DeBERTa's
    # legacy decoder, legacy·(1 − tie)), whose probes at tie = 1 saw tie only, and whose
    # template's fields with every flag are more monomials than the builds determine
    own = sorted(first | set(d.flags))
    if found is None and d.flags and own != with_flags and len(own) <= 8:
        found = _fitted(own, ints, samples, equal)
    return found
