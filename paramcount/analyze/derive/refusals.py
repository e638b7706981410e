"""Constraints of a derivation: the order of its layer-count fields, widths at least another
where every sample kept them so and a build below is refused, and the divisibilities a config
validator or the model insists on.

**The one rule for divisibilities.** A *candidate* is "y divides x" that every accepted sample
meets wherever it is asked, where x is an integer field, or the quotient ``a//b`` of two fields
(y then 2: RoPE's even head_dim where head_dim is hidden_size // num_attention_heads; one a
refused sample broke, the pairs being many), and y is a field, a field that changes no weight
(at its base value), the constant 2, a power of two up to 64 (one a refused sample broke:
NeoMME's 16 dividing head_dim), or twice a field (``2*num_attention_heads``). Divisibility by 2
or twice a field is asked only where the quotient is above ``Source.odd_passes`` (4: RoPE lets
an odd head_dim ≤ 4 pass a build); by a higher power, wherever x is positive (NeoMME refuses a head_dim of 24,
whose global layers rotate 6 dims, as it does one of 40). Each candidate is decided by one build near an accepted
sample that breaks it and no other candidate still standing, except those *stronger* than it (a
multiple of its divisor, which breaking it breaks too): refused, it is recorded (where a build
as near, the same field moved to the nearest value breaking nothing standing, builds: refused
too, the refusal is another's, Zamba2's head_dim of 0 below half its heads); accepted, it
held by chance and stops standing, so the others are broken without it (CodeGen's vocabulary
divided n_embd in every sample). Where no build breaks one alone, one breaking it among others
is tried: accepted, none of those it broke is insisted on, and all stop standing (LaraMini's
conv kernel and KV heads divided nearly every field in every sample). A layer count that a
composite n changing no weight divides in every sample, where no build breaks that alone (each
value off n's multiples breaks a prime's part of n too), is decided by one build per prime r of
n, n/r off a multiple: each refused, n divides it (:func:`_composite`). What is recorded is said
once: a divisibility a stronger recorded one implies is left out, "b divides a" with "a//b
is even" is "2·b divides a", and y dividing a product is y dividing its one factor that no build
told apart from it (standing still: every build breaking the product broke it too).

A forward (:class:`~paramcount.analyze.derive_cache.CacheSource`'s) rotates no odd head_dim:
its ``odd_passes`` is 0.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from paramcount.analyze.derive import deadline
from paramcount.analyze.derive.claims import evaluator, names

if TYPE_CHECKING:
    from paramcount.analyze.derive.core import Derivation, Run

__all__ = ["constraints"]

TRIES = 12  # accepted samples a build breaking one divisibility alone is looked for from
# constant divisors beyond 2: NeoMME's global layers rotate int(head_dim / 4) dims, which must
# be a multiple of 4, its sliding layers all head_dim, a multiple of 4 too: 16 divides head_dim
POWERS = ("4", "8", "16", "32", "64")


def constraints(run: Run, d: Derivation, samples, refused, order: list[str],
                values: Mapping[str, Any]) -> None:
    """Order relations of the layer-count fields (kept in every sample), widths at least
    another, and the divisibilities the module's rule records."""
    for a, b in itertools.pairwise(order):
        if d.fields[a] < d.fields[b]:
            d.constraints.append(("<=", a, b))
    ints = [f for f in d.fields if f not in d.flags]
    # tested even where no sample was refused: the random values meet some by chance (MiniMax-M2's
    # head_dim stayed even), and the proof's large ones do not
    kept = {g: v for g, v in d.explicit.items() if g not in d.fields and type(v) is int and v > 1}
    divisors = [*ints, *kept, "2", *POWERS, *(f"2*{f}" for f in ints)]

    points = [p for p, _ in samples]
    # (twice a field over another: Zamba2's attention is 2·hidden_size wide, its head_dim
    # 2·hidden_size // num_attention_heads, which RoPE wants even)
    quotients = [f"{a}//{b}" for a in ints for b in [*ints, *kept] if a != b]
    quotients += [f"2*{a}//{b}" for a in ints for b in ints if a != b]
    candidates = [(a, b) for a in ints for b in divisors if a != b and b != f"2*{a}"]
    candidates += [(q, "2") for q in quotients]
    # a product of two fields, divided by a third (Zamba's mamba_expand·hidden_size by
    # n_mamba_heads: where neither factor alone need be a multiple), as a quotient is asked
    candidates += [(f"{a}*{c}", y) for a, c in itertools.combinations(ints, 2)
                   for y in ints if y not in (a, c)]

    compiled: dict[str, Any] = {}

    def val(p, x) -> int:  # a field that changes no weight divides at its base value
        f = compiled.get(x)
        if f is None:
            f = compiled[x] = evaluator(x, kept)
        return f(p)

    twice = {b: b == "2" or b.startswith("2*") for b in divisors}  # asked above twice b
    odd = run.src.odd_passes  # a quotient (a//b by 2, a/b by 2·b) asked to be even above it

    def asks(x: int, n: int, b: str) -> bool:  # x (a's value) is asked to be divided by n (b's)
        return bool(n) and (2 * x > odd * n if twice[b] else x > 0)

    def asked(p, a, b) -> bool:
        return asks(val(p, a), val(p, b), b)

    def broken(p, a, b) -> bool:  # asked, and not divided
        x, n = val(p, a), val(p, b)
        return asks(x, n, b) and x % n != 0

    # a quotient's, or a power of two's above 2, only where a refused sample broke it (the
    # pairs are many; a field's are few)
    standing = [c for c in candidates if any(asked(p, *c) for p in points)
                and not any(broken(p, *c) for p in points)
                and ((c[0].isidentifier() and c[1] not in POWERS)
                     or any(broken(p, *c) for p, _ in refused))]
    # y dividing a product stands only where y divides neither factor in every sample: otherwise
    # the factor's own divisibility implies it, and is the one a build decides (a product kept
    # standing beside it blocks every build breaking the factor: Qwen 2's KV heads divide
    # T × heads in every forward where they divide the heads)
    standing = [c for c in standing if _factor(c, standing) == c]

    def const(x) -> int | None:  # a divisor's value where no field that changes a weight
        if x.startswith("2*"):  # sets it (2, or one that changes no weight, or twice that)
            n = const(x[2:])
            return None if n is None else 2 * n
        return int(x) if x.isdigit() else kept.get(x)

    def stronger(c, o) -> bool:  # o implies c: breaking c breaks o (BART's equal heads too)
        (a, b), (x, y) = c, o
        if "*" in a and "//" not in a:  # y divides a factor: the product too
            return y == b and x in a.split("*")
        if "//" in a:  # 2·b divides a: a // b is even
            return b == "2" and a.split("//") == [x, y.removeprefix("2*")] and y.startswith("2*")
        m, n = const(b), const(y)
        return x == a and (y == f"2*{b}" or (b == "2" and y.startswith("2*")) or (
            m is not None and n is not None and n % m == 0))

    # the fields each side of a candidate reads: at a point q moved from an accepted sample p,
    # a standing candidate reading no moved field is as unbroken as at p (every sample kept it;
    # Inkling 2 Loop's 177 refusals left thousands standing, each searched for every build)
    reading = {c: {*names(c[0]), *names(c[1])} for c in candidates}

    def moved(q, p) -> set:
        return {x for x, v in q.items() if p.get(x) != v}

    def alone(c):  # q breaks c and no other standing candidate that reads a field it moved
        others: dict[frozenset, list] = {}  # (standing is fixed while one candidate is sought)
        orders = [(x, y) for op, x, y in d.constraints if op == "<="]

        def test(q, p) -> bool:
            if not broken(q, *c):
                return False
            near = frozenset(moved(q, p))
            if near not in others:
                others[near] = [o for o in standing
                                if o != c and reading[o] & near and not stronger(c, o)]
            return all(not broken(q, *o) for o in others[near]) \
                and all(val(q, x) <= val(q, y) for x, y in orders)
        return test

    def rejects(q) -> bool:  # a build at q (flags as booleans) is refused
        return isinstance(run.try_build(
            {**values, **{k: (bool(v) if k in d.flags else v) for k, v in q.items()}}), str)

    def blamed(q, p, f, keeps=lambda r: True) -> bool:  # a refusal at q (f moved from p)
        # is what q broke: a build as near, f moved to the nearest other value where nothing
        # standing is broken (and ``keeps``), builds (Zamba2's hidden_size moved below half its
        # heads, head_dim 0, broke whatever it was moved for); none such: q's, as before
        for m in sorted(range(1, 2 * p[f] + 13), key=lambda m: (abs(m - q[f]), m)):
            if m in (q[f], p[f]):
                continue
            r = {**q, f: m}
            near = moved(r, p)
            if keeps(r) and not any(broken(r, *o) for o in standing if reading[o] & near) \
                    and all(val(r, x) <= val(r, y) for op, x, y in d.constraints if op == "<="):
                return not rejects(r)
        return True

    # a width at least another (CTRL's n_embd at least n_head: head_dim = n_embd // n_head
    # is 0 below, and head_dim ** -0.5 raises), where every accepted sample had it: decided by
    # one build below, as a divisibility is, whether or not a refused sample lay below (at
    # n_head 4 every random n_embd was a multiple of the heads, none below them)
    below = [(b, a) for a in ints for b in [*ints, *kept] if a != b and b not in order
             and all(p[a] >= val(p, b) for p in points)]
    reads: dict[frozenset, list] = {}  # the standing candidates reading a moved field
    for b, a in below:  # (a divisibility of a by more than a is broken below it, and moot)

        def under(q, p, a=a, b=b) -> bool:
            if not q[a] < val(q, b):
                return False
            near = frozenset(moved(q, p))
            if near not in reads:
                reads[near] = [o for o in standing if reading[o] & near]
            return not any(broken(q, *o) for o in reads[near]
                           if not (o[0] == a and 0 < q[a] < val(q, o[1]))) \
                and all(q[x] >= val(q, y) for y, x in below if (y, x) != (b, a))
        hit = _alone(points, [a], standing, under)
        if hit is not None and rejects(hit[0]) \
                and blamed(*hit, keeps=lambda r, a=a, b=b: r[a] >= val(r, b)):
            d.constraints.append(("<=", b, a))
    def among(c):  # q breaks c, perhaps others too, but none recorded, nor an order
        def test(q, p) -> bool:
            return broken(q, *c) and not any(broken(q, *o) for o in found) \
                and all(val(q, x) <= val(q, y) for op, x, y in d.constraints if op == "<=")
        return test

    found: list = []
    undecided = list(standing)
    shaken: set = set()  # candidates one build broke among others, refused (nothing learnt)
    gone: list = []  # candidates out of standing, in order
    failed: dict = {}  # a candidate no build broke alone: (len(gone) then, the fields it moves)

    def drop(out) -> None:
        standing[:] = [o for o in standing if o not in out]
        undecided[:] = [o for o in undecided if o not in out]
        gone.extend(out)

    def reach(c) -> set[str]:  # the fields a search for c moves: its own, their multiples and
        out = set(_fields_of(c, d.fields))  # divisors among the standing
        for f in list(out):
            out |= {x for x, y in standing if y == f} | _divisors(f, standing, set(d.fields))
        return out

    def stuck(c) -> bool:  # searched in vain, and no candidate reading what it moves gone since
        n, fields = failed.get(c, (-1, set()))
        return n >= 0 and not any(reading[o] & fields for o in gone[n:])

    while undecided:
        progress = False
        for c in [c for c in undecided if not stuck(c)]:
            if c not in undecided:  # (dropped with another)
                continue
            hit = _alone(points, _fields_of(c, d.fields), standing, alone(c))
            if hit is None and c not in shaken:
                # none breaks it alone (LaraMini: its conv kernel and KV heads, 4 in every
                # sample, divided every field by chance, and num_key_value_heads had to divide
                # num_attention_heads): a build breaking it among others, accepted, shows none
                # of them is required, and the rest may then break alone
                shaken.add(c)
                shake = _alone(points, _fields_of(c, d.fields), standing, among(c))
                if shake is not None and not rejects(shake[0]):
                    drop({o for o in standing if broken(shake[0], *o)})
                    progress = True
                    continue
            if hit is None:
                failed[c] = (len(gone), reach(c))
                continue
            progress = True
            if not rejects(hit[0]):
                drop({c})
            elif blamed(*hit):
                found.append(c)
                undecided.remove(c)
            else:  # as near, breaking nothing, refused too: the refusal says nothing of c
                failed[c] = (len(gone), reach(c))
        if not progress:
            break
    found += _composite(points, order, kept, standing, found, val, broken, rejects, blamed,
                        [(x, y) for op, x, y in d.constraints if op == "<="])
    # a product found whose one factor's own divisibility still stands: every build breaking the
    # product broke the factor too, and none broke the factor alone (Qwen 2's forward refuses
    # KV heads not dividing the heads, found as dividing heads × layers): the factor's
    found = list(dict.fromkeys(_factor(c, standing) for c in found))
    for a, b in list(found):  # b divides a, a // b even: 2·b divides a
        if (f"{a}//{b}", "2") in found:
            found = [c for c in found if c not in ((a, b), (f"{a}//{b}", "2"))] + [(a, f"2*{b}")]
    d.constraints += [("divides", a, b) for a, b in found
                      if not any(stronger((a, b), o) and not stronger(o, (a, b))
                                 for o in found if o != (a, b))]
    # b (or 2·b) dividing a, a positive, says a is at least b: said once, by the division
    d.constraints[:] = [c for c in d.constraints if not (c[0] == "<=" and any(
        ("divides", c[2], y) in d.constraints for y in (c[1], f"2*{c[1]}")))]


def _composite(points, order: list[str], kept: Mapping[str, int], standing, found, val, broken,
               rejects, blamed, orders) -> list[tuple[str, str]]:
    """A layer count that a field changing no weight divides in every sample, where no build
    breaks that alone: its divisor n is composite, and every value off its multiples breaks a
    prime's part of it too, or another field equal to it in every sample (Inkling 2 Loop's
    loop_layer_index_end, a multiple of its 6 n_layers_per_attn_res_block: 2 and 3 divided it
    in every sample, and so did loop_layer_index_start, 6 in each). For each prime r of n, a
    build near an accepted sample, the count n/r off it, keeps r's complement dividing it and
    breaks only what n dividing it implies (a divisor of n dividing it, or a product of it):
    refused, each, and blamed (a build as near on a multiple builds), n divides it."""
    out = []
    for f, g in ((f, g) for f in order for g in kept if (f, g) in standing):
        n = kept[g]
        primes = _primes(n)
        if primes == [n] or (f, g) in found:
            continue  # (a prime: a build breaks it alone, if any does)

        def implied(o, q, f=f, n=n) -> bool:
            dividend = o[0].split("*") if "//" not in o[0] else [o[0]]
            return f in dividend and val(q, o[1]) > 0 and n % val(q, o[1]) == 0

        def off(r, f=f, g=g, n=n):  # (an order 'g at most f' the division implies: moot)
            kept_orders = [(x, y) for x, y in orders if (x, y) != (g, f)]
            for p in points[:TRIES]:
                for m in (p[f] - n // r, p[f] + n // r):
                    q = {**p, f: m}
                    if m > 0 and all(val(q, x) <= val(q, y) for x, y in kept_orders) and not any(
                            broken(q, *o) and not implied(o, q) for o in standing):
                        return q, p
            return None

        hits = [off(r) for r in primes]
        if all(h is not None and rejects(h[0]) and blamed(*h, f) for h in hits):
            out.append((f, g))
    return out


def _factor(c: tuple[str, str], standing) -> tuple[str, str]:
    """``c``, or where c is y dividing a product and y dividing exactly one of its factors still
    stands, that."""
    a, y = c
    if "*" not in a or "//" in a:
        return c
    stands = [f for f in a.split("*") if (f, y) in standing]
    return (stands[0], y) if len(stands) == 1 else c


def _primes(n: int) -> list[int]:
    """The primes dividing ``n`` (n ≥ 1), in order, by trial division up to its root."""
    out, r = [], 2
    while r * r <= n:
        if n % r == 0:
            out.append(r)
            while n % r == 0:
                n //= r
        r += 1
    return out + ([n] if n > 1 else [])


def _fields_of(c: tuple[str, str], fields) -> list[str]:
    """The fields a build breaking ``c`` may move: its dividend's (both of a quotient's), then
    its divisor's."""
    return [f for f in dict.fromkeys([*names(c[0]), *names(c[1])]) if f in fields]


def _alone(points, fields: list[str], held, alone) -> tuple[dict, dict, str] | None:
    """A point near an accepted sample that breaks one divisibility alone: one field moved, and
    the fields it divided there (Jais 2's head_dim divides hidden_size) multiplied to match, or
    the fields that divided it set to 1; with the sample and the field it moved."""
    for p in points[:TRIES]:
        deadline.check("looking for a build that breaks one constraint alone")
        for f in fields:
            multiples = [x for x, y in held if y == f and x != f and x in p]
            ones = dict.fromkeys(_divisors(f, held, set(p)), 1)
            for m in range(1, 2 * p[f] + 13):
                q = {**p, f: m}
                if m == p[f]:
                    continue
                if alone(q, p):
                    return q, p, f
                q.update({x: p[x] * m for x in multiples})
                if alone(q, p):
                    return q, p, f
                # the fields that divided it (Llama's heads, KV heads: head_dim odd) at 1
                q = {**p, **ones, f: m}
                if alone(q, p):
                    return q, p, f
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

