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

An order ``a <= b`` whose refused builds a wider gap between the two accepts (:func:`gaps`) is
stated with that gap, ``a + g <= b``, as the formula's domain: Gemma 3n's last
num_kv_shared_layers layers reuse the keys and values of the layers before them, and the config
refuses a stack whose unshared layers lack a layer type the shared ones have (its first full
attention layer is the fifth: g = 5 where there are five layers or more, less below).

A tie (a weight counted once, as the one it is tied to) is likewise stated only where a build with
its flags on shares the weight (:func:`untied`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from paramcount.analyze.derive.core import Derivation, Run
    from paramcount.analyze.derive.probe import Built

__all__ = ["check_orders", "evaluator", "gaps", "minimums", "names", "total", "unread", "untied",
           "value"]

TRIES = 3  # builds breaking one order, each from another accepted build


def names(side: str) -> list[str]:
    """The names and numbers one side of a stated constraint is written in, in order: a field, a
    product (``expand*hidden``, ``2*head_dim``), a quotient (``hidden//heads``) or a sum with a
    gap (``a+5``)."""
    return re.split(r"\*|//|\+", side)


def total(b: Built) -> dict[str, int]:
    """A build's weights by role (trainable, frozen, buffer), as Derivation.count gives them."""
    out = {"trainable": 0, "frozen": 0, "buffer": 0}
    for o in b.values():
        out[o.role] += o.count * math.prod(o.shape)
    return out


def value(p: Mapping[str, int], x: str, kept: Mapping[str, Any]) -> int:
    """A constraint side's value at ``p``: a field (else its ``kept`` base value), a constant,
    twice a field (``2*h``), a quotient (``a//b``, 0 by 0), a product (``a*c``) or a sum (``+``)."""
    return evaluator(x, kept)(p)


def evaluator(x: str, kept: Mapping[str, Any]) -> Callable[[Mapping[str, int]], int]:
    """:func:`value` of the side ``x`` as a function of the point, ``x`` parsed once (the
    refusals' search asks the same few sides at millions of points)."""
    if "+" in x:  # a per-layer list's counts together
        parts = [evaluator(y, kept) for y in x.split("+")]
        return lambda p: sum(f(p) for f in parts)
    if "*" in x and not x.startswith("2*"):  # a product of two fields (a divisibility's)
        a, b = (evaluator(y, kept) for y in x.split("*"))
        return lambda p: a(p) * b(p)
    if "//" in x:
        n, m = (evaluator(y, kept) for y in x.split("//"))

        def quotient(p: Mapping[str, int]) -> int:
            d = m(p)
            return n(p) // d if d else 0
        return quotient
    if x.startswith("2*"):
        f = evaluator(x[2:], kept)
        return lambda p: 2 * f(p)
    if x.isdigit():
        k = int(x)
        return lambda p: k
    return lambda p: int(p[x]) if x in p else int(kept[x])


def _holds(c: tuple[str, str, str], p, kept) -> bool:
    op, a, b = c
    x, y = value(p, a, kept), value(p, b, kept)
    if op == "divides":
        return y == 0 or x % y == 0
    return x <= y if op == "<=" else True


def _breaking(c: tuple[str, str, str], p: dict[str, int], others, kept) -> list[dict[str, int]]:
    """Points near ``p`` where ``c`` (a <= b) fails and every relation of ``others`` holds: a
    moved past b, or b below a."""
    _, a, b = c
    first = a.split("+")[0]
    lo, hi = value(p, a, kept), value(p, b, kept)
    out = []
    for step in (1, 2):  # (a field that changes no weight moves from its base value)
        out.append({**p, first: value(p, first, kept) + hi - lo + step})
    if b.isidentifier() and lo - 1 >= 0:  # a field (not a sum, a quotient, twice one)
        out.append({**p, b: lo - 1})
    return [q for q in out if not _holds(c, q, kept) and all(_holds(o, q, kept) for o in others)]


def _decide(run: Run, d: Derivation, c, others, samples, values, kept) -> str:
    """"keep" (every build breaking ``c`` alone refused), "drop" (they build, and count what
    the formula counts) or "domain" (one counts otherwise, or none breaks it alone)."""
    _, a, b = c
    # what c implied with the others (a <= y where b <= y), held while it is broken
    others = [*others, *(("<=", a, y) for op, x, y in others if op == "<=" and x == b
                         and y != a)]
    flags = set(d.flags)
    built = refused = 0
    differs = False
    for p, _ in samples:
        if built + refused >= TRIES:
            break
        q = next(iter(_breaking(c, dict(p), others, kept)), None)
        if q is None:
            continue
        got = run.try_build({**values, **{k: (bool(v) if k in flags else v)
                                          for k, v in q.items()}})
        if isinstance(got, str):
            refused += 1
            continue
        built += 1
        differs = differs or total(got) != d.count(q)
    return "keep" if refused and not built else "domain" if differs or not built else "drop"


def check_orders(run: Run, d: Derivation, samples, values: Mapping[str, Any]) -> None:
    """Decide each ``<=`` of ``d.constraints`` (and ``d.domain``) by builds that break it alone
    (see the module's docstring); ``samples``: the fit's accepted (point, build) pairs. An
    order of a chain (a <= b <= c) is dropped only where what it implied (a <= c) is too: else
    it stays, the formula's domain (a list's counts within its layers, in the base's order; two
    orders below one field are two cones, which no one substitution of the proof covers)."""
    if d.failures:
        return
    kept = {**{g: v for g, v in values.items() if type(v) is int}, **d.fields}
    every = list(dict.fromkeys([*d.constraints, *d.domain]))
    stated = [c for c in every if c[0] != "<="]
    todo = [c for c in every if c[0] == "<="]
    keep: list[tuple[str, str, str]] = []
    domain: list[tuple[str, str, str]] = []
    while todo:
        c = todo.pop(0)
        others = [*stated, *keep, *domain, *todo]
        how = _decide(run, d, c, others, samples, values, kept)
        if how == "drop":  # and what it implied with the orders still standing
            implied = [("<=", c[1], y) for op, x, y in [*keep, *domain, *todo]
                       if op == "<=" and x == c[2] and y != c[1]]
            if any(_decide(run, d, o, [x for x in others if x != o], samples, values, kept)
                   != "drop" for o in implied):
                how = "domain"
        (keep if how == "keep" else domain if how == "domain" else []).append(c)
    d.constraints = [c for c in d.constraints if c[0] != "<=" or c in keep] \
        + [c for c in keep if c not in d.constraints]  # (in the order they were found)
    d.domain = domain


GAP_TRIES = 4  # refused builds a gap is looked for from
SMALL = 3  # a layer count a flag needs more of is refused below this (minimums)


def gaps(run: Run, d: Derivation, refused, values: Mapping[str, Any]) -> None:
    """Each order ``a <= b`` of two fields (a constraint or the domain) with refused samples
    that a gap g between them explains: raising b to a + g and lowering a to b − g both
    build, and so does b at a + g + 1 and a + g + 2 (a gap that cured it by chance is none),
    g the least that does, at most the base's gap. The largest such g of up to
    :data:`GAP_TRIES` samples replaces the order, ``a + g <= b``, as the formula's domain (not a
    constraint: builds below the gap are accepted elsewhere, a stack too short for the pattern
    a refusal names). A refusal neither move cures (a divisibility) explains no gap."""
    if d.failures or not refused:
        return
    flags = set(d.flags)

    def builds(q) -> bool:
        return not isinstance(run.try_build(
            {**values, **{k: (bool(v) if k in flags else v) for k, v in q.items()}}), str)

    for c in [c for c in [*d.constraints, *d.domain] if c[0] == "<="]:
        _, a, b = c
        if a not in d.fields or b not in d.fields or a in flags or b in flags:
            continue
        widest = d.fields[b] - d.fields[a]
        need = 0
        # a refusal a divisibility found explains is none a gap may (Cohere 2's odd head
        # width, hidden // heads, which a wider gap keeps even for as many steps as heads)
        divides = [o for o in d.constraints if o[0] == "divides"]
        for p, _ in [r for r in refused if a in r[0] and b in r[0]
                     and 0 <= r[0][b] - r[0][a] < widest
                     and all(_holds(o, {**values, **r[0]}, values) for o in divides)][:GAP_TRIES]:
            lo = p[b] - p[a]
            for g in range(lo + 1, widest + 1):
                if p[b] - g < 0:
                    break
                if builds({**p, b: p[a] + g}) and builds({**p, a: p[b] - g}):
                    # every wider gap builds too (the next two): a gap that cured it by chance
                    # (an even head width hidden // heads, Cohere 2's) is none, nor is one after
                    if all(builds({**p, b: p[a] + h}) for h in (g + 1, g + 2)):
                        need = max(need, g)
                    break
                if g == lo + 1 and not builds({**p, b: p[a] + widest}):
                    break  # no gap cures it: another refusal
        if need > 1:
            gap = ("<=", f"{a}+{need}", b)
            d.constraints = [x for x in d.constraints if x != c]
            d.domain = [gap if x == c else x for x in d.domain] + ([] if c in d.domain
                                                                    else [gap])


def untied(run: Run, d: Derivation, at: Mapping[str, Any]) -> list[str]:
    """The templates :func:`paramcount.analyze.derive.tree.ties` would call tied that a build
    with the flags on (at the probes' values) does not share with the weight named: each
    parameter the template names there must be that weight's object (an LM head tied to the
    embedding is ``embed_tokens.weight`` itself), else the flag only removes it."""
    import re

    from paramcount.analyze.derive.tree import ties

    def names(template: str) -> str:
        segs = template.split("@")[0].split(".")  # (expert_*: a numbered ModuleDict's keys)
        return "^" + r"\.".join(r"\d+" if x == "*" else re.escape(x[:-2]) + r"(_\d+)?"
                                 if x.endswith("_*") else re.escape(x) for x in segs) + "$"

    out = []
    for t, (to, flags) in ties(d).items():
        run.builds += 1
        try:
            model = run.src.model(run.src.config({**at, **dict.fromkeys(flags, True)}))
        except Exception:  # no build with them: no tie seen
            out.append(t)
            continue
        if not hasattr(model, "named_parameters"):  # a Keras builder's model: not read here
            continue
        params = dict(model.named_parameters(remove_duplicate=False))
        mine = [p for n, p in params.items() if re.match(names(t), n)]
        theirs = {id(p) for n, p in params.items() if re.match(names(to), n)}
        if not mine or any(id(p) not in theirs for p in mine):
            out.append(t)
    return out


def minimums(run: Run, d: Derivation, samples, refused, layers: list[str],
             values: Mapping[str, Any]) -> None:
    """Each layer count ``a`` (of ``layers``, the counts the random builds drew in order, and
    a per-layer list's) a flag ``f`` needs at least ``k`` of: refused builds with ``f``
    set and ``a`` below :data:`SMALL` that ``f`` unset cures, and so does ``a`` raised to ``k``
    (and ``k + 1``, ``k + 2``: a cure by chance is none; an order above ``a`` raised with it),
    ``k`` the largest such least value of up to :data:`GAP_TRIES` of them (none where one is
    not cured so); kept where ``k > 1`` and an accepted build with
    ``f`` set and ``a`` lowered to ``k − 1`` is refused, that same build with ``f`` unset
    accepted. Stated ``k <= a when f = 1`` (:attr:`Derivation.conditional`): Zamba ties its
    hybrid layers' shared block to the first one's only where tie_word_embeddings is set, and
    transformers refuses the tie's pattern where it names no other hybrid layer (one)."""
    d.conditional = []
    if d.failures or not refused or not d.flags:
        return
    flags = set(d.flags)
    stated = [*d.constraints, *d.domain]
    orders = [c for c in stated if c[0] == "<="]
    counts = [f for f in dict.fromkeys([*layers, *d.counts]) if f in d.fields and f not in flags]

    def builds(q) -> bool:
        return not isinstance(run.try_build(
            {**values, **{k: (bool(v) if k in flags else v) for k, v in q.items()}}), str)

    def raised(p, a, k) -> dict[str, int]:  # a at k, each field an order puts above it too
        q = {**p, a: k}
        for _ in orders:
            for _, x, y in orders:
                if y in q and value(q, x, values) > q[y]:
                    q[y] = value(q, x, values)
        return q

    for f in d.flags:
        cured = [p for p, _ in refused if p.get(f) == 1
                 and all(_holds(o, {**values, **p}, values) for o in stated)][:GAP_TRIES]
        cured = [p for p in cured if builds({**p, f: 0})]
        for a in counts:
            need = 0
            for p in (p for p in cured if 0 < p.get(a, SMALL) < SMALL):  # (a few builds)
                k = next((k for k in range(p[a] + 1, SMALL + 1) if builds(raised(p, a, k))), None)
                if k is None or not all(builds(raised(p, a, k + h)) for h in (1, 2)):
                    need = 0  # more of a does not cure it: another refusal
                    break
                need = max(need, k)
            if need < 2:
                continue
            below = next(({**p, a: need - 1} for p, _ in samples if p.get(f) == 1
                          and p.get(a, 0) >= need and all(_holds(o, {**values, **p, a: need - 1},
                                                                 values) for o in stated)), None)
            if below is not None and not builds(below) and builds({**below, f: 0}):
                d.conditional.append(("<=", str(need), a, f))


def unread(d: Derivation) -> None:
    """Hold each field found to change a weight that no template of the fitted formula reads and
    every build the fit accepted kept at its base value (``d.steady``): the formula is exact
    there only (Inkling 2 Loop's loop_layer_index_start, a multiple of
    n_layers_per_attn_res_block at most loop_layer_index_end, was 6 in every accepted build: its
    formula counted the looped layers as loop_layer_index_end - 6 and named the field a
    hyperparameter). Held, it is no longer one; an order or divisibility that read it reads its
    value, and one left with no field goes. A field the builds varied that no expression reads
    stays a hyperparameter: the proof varies it too."""
    from paramcount.analyze.derive.fit import constant

    def reads(atom) -> set[str]:
        if isinstance(atom, str):
            return {atom}
        _, a, b = atom
        return reads(a) | (set() if constant(b) else {b})

    read = {n for t in d.templates for poly in (t.mult, *t.dims) for _, atoms in poly
            for atom in atoms for n in reads(atom)}
    for f in [f for f in d.fields if f in d.steady and f not in d.flags and f not in d.counts
              and f not in read]:
        value = d.fields.pop(f)
        d.explicit[f] = value
        d.unvaried[f] = (f"changes a weight, but every build the fit accepted kept it at {value}: "
                         "the formula is exact there only")

    def reads_a_field(c) -> bool:
        op, a, b = c[:3]
        dividend = set(names(a))
        if op == "divides" and not dividend <= set(d.fields) | {"2"}:
            return False  # (its dividend a value now: nothing left to draw)
        return bool((dividend | set(names(b))) & set(d.fields))

    d.constraints[:] = [c for c in d.constraints if reads_a_field(c)]
    d.domain[:] = [c for c in d.domain if reads_a_field(c)]
    d.conditional[:] = [c for c in d.conditional if reads_a_field(c)]
