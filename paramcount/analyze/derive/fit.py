"""Exact fits of an integer function of a few config fields, from builds.

A weight's dimension (or the number of weights a template names) is found as a polynomial with
integer coefficients, each field of degree at most one in a monomial and at most
:data:`MAX_DEGREE` fields in one, over *atoms*: the fields themselves and, where the fields alone
do not fit, one more atom, tried in this order: an indicator [a = 0], a floor division of two
of them (``hidden_size // num_attention_heads``) or by a constant period (``ffn_dim // 2``), a
square (``patch_size²``), an indicator [a = 1] or [a = b], and last the two halves whose
combination is half a product (``(num_key_value_heads·head_dim) // 2``). Where the samples
cannot tell the atom from the fields, the atom is kept; where few builds hold the weight, a lower
degree. The coefficients solve a linear system modulo a prime, lifted to integers and checked
exactly (no float anywhere); a fit is kept only when every coefficient is an integer and it
reproduces every sample. Nothing here imports a framework or SymPy: an expression is data
(:data:`Poly`), so a derivation is stored as JSON and never as code.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction

from paramcount.analyze.derive import deadline
from paramcount.analyze.derive.linsolve import solve

__all__ = ["MAX_DEGREE", "Atom", "Poly", "atom_value", "evaluate", "fit", "poly_text"]

MAX_DEGREE = 3  # a dimension is a product of at most three factors (heads·head_dim; (L−k)·E)
MAX_FIELDS = 5  # floors and equalities are tried among at most this many fields

# An atom: a field's name, ("floor", a, b) for a // b, ("ceil", a, b) for ⌈a / b⌉, ("pow", a, "2")
# for a², ("isqrt", a, "2") for ⌊√a⌋, or ("eq", a, b): 1 where a = b, else 0
# (b a field or a constant: ("eq", a, "0") is 1 where a is 0, so a template present only where
# num_shared_experts > 0 names L·(1 − [num_shared_experts = 0]) weights). A floor's or a
# ceiling's a may itself be an atom and its b an exact fraction: LFM2's feed-forward width,
# int(2·I/3) rounded up to a multiple of m, is m·("ceil", ("floor", "I", "3/2"), "m").
# ("minus", a, k) is a − k, only inside a ceiling: the layers i < L with i ≡ k (mod p), every
# p-th layer from the k-th (Jamba's experts at i % 2 = 1), are ⌈(L − k) / p⌉ for 0 ≤ k < p.
# ("times", a, c) is a·c, only inside a floor: a product of two fields divided by a third
# (Zamba's Mamba head width, mamba_expand·hidden_size // n_mamba_heads).
Atom = str | tuple[str, "Atom", str]
# A polynomial: (coefficient, atoms of the monomial) pairs; () is the constant monomial.
Poly = tuple[tuple[int, tuple[Atom, ...]], ...]


def constant(b: str) -> bool:
    """Whether an atom's second operand is a constant (``2``, ``3/2``), not a field."""
    return _CONSTANT.fullmatch(b) is not None


_CONSTANT = re.compile(r"\d+(/\d+)?")
RATIOS = ("3/2",)  # fractional divisors tried, nested in a rounding: int(2·x/3), SwiGLU's 2/3


def atom_value(atom: Atom, point: Mapping[str, int]) -> int:
    if isinstance(atom, str):
        return int(point[atom])
    op, a, b = atom
    x = atom_value(a, point)
    if op == "isqrt":
        return math.isqrt(x) if x > 0 else 0
    other: int | Fraction = (Fraction(b) if "/" in b else int(b)) if constant(b) \
        else int(point[b])
    if op == "pow":
        return x ** int(other)
    if op == "eq":
        return int(x == other)
    if op == "minus":
        return x - int(other)
    if op == "times":
        return x * int(other)
    if not other:
        return 0
    if op == "ceil":
        return -(-x // other) if type(other) is int else math.ceil(x / other)
    return x // other if type(other) is int else math.floor(x / other)


def evaluate(poly: Poly, point: Mapping[str, int]) -> int:
    total = 0
    for coeff, atoms in poly:
        term = coeff
        for a in atoms:
            term *= atom_value(a, point)
        total += term
    return total


def _monomials(atoms: Sequence[Atom], degree: int = MAX_DEGREE) -> list[tuple[Atom, ...]]:
    out: list[tuple[Atom, ...]] = []
    for k in range(min(degree, len(atoms)) + 1):
        out += [m for m in itertools.combinations(atoms, k) if not _repeats_field(m)]
    return out


def _repeats_field(mono: tuple[Atom, ...]) -> bool:
    """a·(a // b) is kept (heads·(hidden // heads)); two floors of one pair are not, nor two
    atoms of one field (an indicator beside a floor); two halves of two fields are
    ((a // 2)·(b // 2), in (a·b) // 2)."""
    odd = [m for m in mono if not isinstance(m, str)]
    halves = [m for m in odd if m[0] == "floor" and m[2].isdigit()]
    return len(odd) > 1 and (len(halves) != len(odd) or len({m[1] for m in halves}) < len(odd))


def _try(atoms: Sequence[Atom], samples: Sequence[tuple[Mapping[str, int], int]]) -> Poly | None:
    deadline.check("fitting the weights' counts and shapes")  # (a derivation's budget)
    # the extra atom (a floor, an indicator) first: where the samples cannot tell it from the
    # fields (every ffn_dim even: ffn_dim // 2 = ffn_dim / 2), the solve keeps its column and
    # sets a field's to zero, rather than giving the field a coefficient 1/2
    atoms = sorted(atoms, key=lambda a: isinstance(a, str))
    monos = _monomials(atoms)
    # distinct points only; solve from at most 3·(monomials) of them, check on all
    seen: dict[tuple, tuple[Mapping[str, int], int]] = {}
    for point, y in samples:
        key = tuple(atom_value(a, point) for a in atoms)
        if key in seen and seen[key][1] != y:
            return None  # the same atom values, two results: not a function of these atoms
        seen.setdefault(key, (point, y))
    distinct = list(seen.values())
    if len(distinct) < len(monos):
        # few builds have it (a bias only where attention_bias is 1): a lower degree, with
        # three samples beyond its unknowns to check it, before none
        monos = next((m for k in range(MAX_DEGREE - 1, 0, -1)
                      if len(m := _monomials(atoms, k)) + 3 <= len(distinct)), [])
        if not monos:
            return None
    rows = [[_mono_value(mo, p) for mo in monos] for p, _ in distinct]
    x = solve(rows, [y for _, y in distinct])
    if x is None:
        return None
    # a monomial's fields before its floors and indicators, as the fields alone give them
    poly: Poly = tuple((int(v), tuple(sorted(mo, key=lambda a: not isinstance(a, str))))
                       for v, mo in zip(x, monos, strict=True) if v != 0)
    if all(evaluate(poly, p) == y for p, y in samples):
        return poly
    return None


def _mono_value(mono: tuple[Atom, ...], point: Mapping[str, int]) -> int:
    out = 1
    for a in mono:
        out *= atom_value(a, point)
    return out


def fit(fields: Sequence[str], ints: Sequence[str],
        samples: Sequence[tuple[Mapping[str, int], int]],
        equal: Sequence[tuple[str, str]] = ()) -> Poly | None:
    """The expression in ``fields`` that gives every sample's value, or None.

    ``ints`` are the fields that may divide or be divided (not flags). The fields alone are
    tried first, then each floor division of two of them beside them, then each of the
    ``equal`` pairs' indicator ([a = b]: OPT projects its embeddings only where
    word_embed_proj_dim ≠ hidden_size).
    """
    fields = sorted(fields)
    found = _try(fields, samples)
    if found is not None:
        return found
    found = _gated(fields, ints, samples, equal)
    if found is not None or len(fields) > MAX_FIELDS:
        return found
    divisible = [f for f in fields if f in ints]
    # a part only nonzero values make (a shared expert where num_shared_experts > 0), before
    # the floors, which small values would let fit it by chance
    for a in divisible:
        if any(p[a] == 0 for p, _ in samples):
            found = _try([*fields, ("eq", a, "0")], samples)
            if found is not None:
                return found
    # a part absent where two fields are equal, and only there (LUKE's entity projection where
    # entity_emb_size = hidden_size), before the floors: where every sample had a ≤ b (the
    # base's a divided b), 1 − ⌊a / b⌋ fits as well, and one absent build, a's value there
    zeros = [p for p, y in samples if y == 0]
    for a, b in itertools.combinations(divisible, 2):
        if zeros and all(p[a] == p[b] for p in zeros):
            found = _try([*fields, ("eq", a, b)], samples)
            if found is not None:
                return found
    for a, b in itertools.permutations(divisible, 2):
        # a at most b in every sample: a // b is [a = b] where b > 0, said so, which the prover
        # splits (Inkling 2's one fewer query where every layer is of the kind; a // b with
        # b = a + b' it cannot)
        if all(0 <= p[a] <= p[b] and p[b] > 0 for p, _ in samples) \
                and any(p[a] == p[b] for p, _ in samples):
            found = _try([*fields, ("eq", a, b)], samples)
            if found is not None:
                return found
        found = _try([*fields, ("floor", a, b)], samples)
        if found is not None:
            return found
    for a in divisible:  # a layer pattern of a constant period (every 4th layer)
        for k in range(2, 9):
            found = _try([*fields, ("floor", a, str(k))], samples)
            if found is not None:
                return _simplest(found, fields, divisible, samples)
    for a in divisible:  # a square (CPM-Ant's segment_types², Fuyu's patch_size²·channels)
        found = _try([*fields, ("pow", a, "2")], samples)
        if found is not None:
            return found
    # a part only more than one value makes (XLM's language embeddings where n_langs > 1)
    for a in divisible:
        if any(p[a] == 1 for p, _ in samples):
            found = _try([*fields, ("eq", a, "1")], samples)
            if found is not None:
                return found
    # a part absent at one value of a field alone (BLT's token_embedding_projection: none where
    # the encoder's width times cross_attn_k is the global width, held, so at cross_attn_k = 2)
    for a in divisible:
        at = {p[a] for p, y in samples if y == 0}
        if len(at) == 1 and (v := at.pop()) > 1:
            found = _try([*fields, ("eq", a, str(v))], samples)
            if found is not None:
                return found
    # ELECTRA's embeddings_project where embedding_size ≠ hidden_size (unequal at the base)
    for a, b in equal:
        if a in fields or b in fields:
            found = _try([*sorted({*fields, a, b}), ("eq", a, b)], samples)
            if found is not None:
                return found
    for a, b in itertools.combinations(divisible, 2):
        if (a, b) not in equal and any(p[a] == p[b] for p, _ in samples):
            found = _try([*fields, ("eq", a, b)], samples)
            if found is not None:
                return found
    # a product divided by a constant: (a·b) // k = a·(b // k) + b·(a // k) − k·(a // k)·(b // k)
    # + ((a mod k)·(b mod k)) // k, which for k = 2 is the first three (Zaya's v_proj: half of
    # num_key_value_heads·head_dim)
    for a, b in itertools.combinations(divisible, 2):
        found = _try([*fields, ("floor", a, "2"), ("floor", b, "2")], samples)
        if found is not None:
            return found
    for a, b in itertools.permutations(divisible, 2):  # Zamba 2's head width 2·hidden // heads
        found = _try([*fields, ("floor", ("times", a, "2"), b)], samples)
        if found is not None:
            return found
    found = _one_divisor(fields, divisible, samples)
    if found is not None:
        return found
    # Σ_{i<b} ⌈(a − i) / b⌉² = b·q² + (a − b·q)·(2q + 1), q = a // b (Zamba 2's untied blocks),
    # before the roundings, which a few small quotients let fit it by chance (⌈q / 2⌉)
    for a, b in itertools.permutations(divisible, 2):
        if found is None and len(fields) < MAX_FIELDS:
            found = _try([*fields, ("floor", a, b), ("pow", ("floor", a, b), "2")], samples)
    found = found if found is not None else _periodic(fields, divisible, samples)
    found = found if found is not None else _rounded(fields, divisible, samples)
    if found is not None or len(fields) > MAX_FIELDS - 1:  # (five fields: a search too long)
        return found
    # last, a product of two fields divided by a third (Zamba's mamba_expand·hidden_size //
    # n_mamba_heads, which the config requires to be exact, not either factor alone)
    for a, c in itertools.combinations(divisible, 2):
        for b in divisible:
            if found is None and b not in (a, c):
                found = _try([*fields, ("floor", ("times", a, c), b)], samples)
    return found


def _gated(fields: list[str], ints, samples, equal) -> Poly | None:
    """A flag ``f`` times an expression of the others, 0 wherever ``f`` is unset: fitted where
    it is set (half the samples: first without each other flag), of degree up to four."""
    for f in (f for f in fields if f not in ints):
        on, rest = [(p, y) for p, y in samples if p[f] == 1], [g for g in fields if g != f]
        for some in [*([g for g in rest if g != x] for x in rest if x not in ints), rest] if on \
                and not any(y or p[f] != 0 for p, y in samples if p[f] != 1) else []:
            if (inner := fit(some, ints, on, equal)) is not None:
                return tuple((c, (*sorted([*(a for a in m if isinstance(a, str)), f]),
                                  *(a for a in m if not isinstance(a, str)))) for c, m in inner)
    return None


def _simplest(found: Poly, fields: list[str], divisible: list[str],
              samples: Sequence[tuple[Mapping[str, int], int]]) -> Poly:
    """A period's fit, or a square's where one fits with fewer terms: a field seen at few
    values (Gemma 3n's altup_num_inputs, 1 to 4) is interpolated by a period with as many
    terms as values (4·a·⌊a/3⌋ + 3·a − 10·⌊a/3⌋ − 2), as exactly as by its square (a²);
    the samples cannot tell them apart, and the simpler is the one a proof then holds."""
    for a in divisible:
        square = _try([*fields, ("pow", a, "2")], samples)
        if square is not None and len(square) < len(found):
            found = square
    return found


def _one_divisor(fields: list[str], divisible: list[str],
                 samples: Sequence[tuple[Mapping[str, int], int]]) -> Poly | None:
    """Two floors by one divisor, ⌊a / b⌋ and ⌊c / b⌋: the layers of a kind every b-th from the
    c-th among the first a, ⌊a / b⌋ − ⌊c / b⌋ (ERNIE 4.5's MoE layers every
    moe_layer_interval-th from moe_layer_start_index), or a head width of one of two widths a
    flag picks, b·⌊a / b⌋ where it is set and b·⌊c / b⌋ where not (MobileBERT's attention,
    num_attention_heads heads of the bottleneck's width or of hidden_size)."""
    for b in divisible:
        for a, c in itertools.combinations([f for f in divisible if f != b], 2):
            found = _try([*fields, ("floor", a, b), ("floor", c, b)], samples)
            if found is not None:
                return found
    return None


SHIFTS = 3  # constant offsets k of a period tried in ⌈(a − k) / b⌉


def _periodic(fields: list[str], divisible: list[str],
              samples: Sequence[tuple[Mapping[str, int], int]]) -> Poly | None:
    """The layers of a kind that recurs every b-th layer, as counts (those from the c-th,
    ⌊a / b⌋ − ⌊c / b⌋, are :func:`_one_divisor`'s): those with i ≡ k (mod b), 0 ≤ k < b (k a
    constant or a field), are ⌈(a − k) / b⌉ (Jamba's experts, i % 2 = 1)."""
    # a count of some of the first a layers is at most a: only such an a is tried (the search
    # is long, and a width fails every try of it)
    below = [a for a in divisible if all(0 <= y <= p[a] for p, y in samples)]
    if not below:
        return None
    for a, b in itertools.permutations(divisible, 2):
        if a not in below:
            continue
        shifts = [str(k) for k in range(1, SHIFTS + 1)] + \
            [k for k in divisible if k not in (a, b)]
        for k in shifts:
            found = _try([*fields, ("ceil", ("minus", a, k), b)], samples)
            if found is not None:
                return found
    return None


def _rounded(fields: list[str], divisible: list[str],
             samples: Sequence[tuple[Mapping[str, int], int]]) -> Poly | None:
    """Last, the roundings: a fraction of a field (int(2·I/3)), a ceiling ⌈x / b⌉ of a field or
    of such a fraction (b·⌈x / b⌉ rounds x up to a multiple of b: LFM2's feed-forward width),
    an integer square root (Doge's product-key router, 2·⌊√num_experts⌋ wide), and half a
    quotient rounded up."""
    inner: list[Atom] = [*divisible, *(("floor", a, r) for a in divisible for r in RATIOS)]
    for x in inner[len(divisible):]:
        found = _try([*fields, x], samples)
        if found is not None:
            return found
    for x in inner:
        for b in divisible:
            if b != x:
                found = _try([*fields, ("ceil", x, b)], samples)
                if found is not None:
                    return found
    for a in divisible:
        found = _try([*fields, ("isqrt", a, "2")], samples)
        if found is not None:
            return found
    for a, b in itertools.permutations(divisible, 2):  # half a quotient, rounded up: ESM's
        found = _try([*fields, ("ceil", ("floor", a, b), "2")], samples)  # RoPE frequencies,
        if found is not None:  # arange(0, hidden // heads, 2)
            return found
    return None


def poly_text(poly: Poly) -> str:
    """A short plain rendering (for messages; the tree prints through SymPy)."""
    if not poly:
        return "0"
    parts = []
    for coeff, atoms in poly:
        body = "·".join(_atom_text(a) for a in atoms)
        if not body:
            parts.append(str(coeff))
        else:
            parts.append(body if coeff == 1 else f"{coeff}·{body}")
    return " + ".join(parts).replace("+ -", "- ")


def _atom_text(a: Atom) -> str:
    if isinstance(a, str):
        return a
    op, x, b = a
    inner = _atom_text(x)
    return {"floor": f"({inner} // {b})", "ceil": f"ceil({inner} / {b})", "pow": f"{inner}^{b}",
            "isqrt": f"isqrt({inner})",
            "minus": f"({inner} - {b})", "times": f"{inner}·{b}"}.get(op, f"[{inner} = {b}]")
