"""Sub-cases derive writes itself, before the prover sees a floor its split cannot take.

The prover splits ``floor(A/B)`` by eliminating a parameter of A whose coefficient is a constant
(:mod:`paramcount.analyze.prove.floors`). A width that is a *product* of two fields floored by a
third, ``floor(x·y/B)`` (DeepSeek V4's grouped output projection, heads·head_dim // o_groups,
which no build refuses where o_groups does not divide), has none: each factor's coefficient is
the other. Its two sub-cases are written here as substitutions, each a sub-architecture whose
fields x, y, B are fixed expressions of new positive parameters, and proven as any other:

- B divides x·y: ``x = B·x'`` (floor = x'·y);
- B does not: ``x = (r + B')·x' + r``, ``B = (r + B')·y``, so that x·y = B·x' + r·y with
  0 < r·y < B (the floor x'): a sub-lattice (y | B) and a sub-region (x mod B below B/y).

Both are sub-lattices or sub-regions of their sub-case, as the prover's own splits are: the map
from the new parameters to (x, y, B, floor) is dominant (birational: given x, y, B and the
floor q, x' = q, B' = B/y − r, r = x − q·B/y), so the prover's assumption (each count a
polynomial of bounded degree in the sub-case's own quantities, x, y, B and q) carries an
identity on the points drawn to the whole sub-case. Every field is of degree two at most in
the new parameters (y kept): the prover's ranges give each parameter half the bits of a value,
not a third (a remainder B = r·y + B', x = B·x' + r, of degree three, leaves four bits each
where the model's other products keep values below 2^12, too few to prove).

Two floors of two ordered fields by one divisor, floor(X/I) and floor(Y/I) with X ≤ Y (ERNIE 4.5
MoE's experts on every I-th layer from the start index S: floor(L/I) − floor(S/I) layers), the
prover splits one at a time: after S = I·S' + r, L's quotient is written over a sub-region whose
quotients grow with S' (L' > I·S' + r), and its proof built models of some 500 layers, 26,496
builds over 32 cases, past an hour. Written here, ``X = I·a + ρ``, ``Y = I·(a + b) + τ``, each
remainder 0 or not (``I = ρ + τ + I'`` where both are not: a sub-region of each below I), the
floors are a and a + b, every field of degree two at most, and the layer counts small.

Two periods over one layer count (Jamba: attention on the layers ≡ attn_layer_offset modulo
attn_layer_period, experts on those ≡ 1 modulo expert_layer_period) are not split here: the
counts are jointly periodic in the layer count with period lcm of the two, so a sub-case on
which both are polynomials fixes a residue modulo both, and writing L = P·q + r for one period
leaves the other quotient's numerator no parameter of constant coefficient to solve for.
:func:`shared_periods` names them, the proof's reason where it stops.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import sympy

from paramcount.core import symbols
from paramcount.core.formula import Term, pretty
from paramcount.core.hparams import Relation

if TYPE_CHECKING:
    from paramcount.model.registry import Architecture

__all__ = ["one_divisor", "product_floor", "shared_periods", "subcases"]

DEPTH = 2  # product floors split in turn, at most


def product_floor(arch: Architecture) -> tuple[sympy.Expr, sympy.Symbol, sympy.Symbol,
                                               sympy.Symbol] | None:
    """The first ``floor(x·y/B)`` (or ceiling) of the formula, x, y, B three distinct settable
    non-flag fields that no constraint names: (atom, x, y, B); else None."""
    free = {s for s in arch.settable if not symbols.info(s).flag}
    named: set[sympy.Symbol] = set()
    for c in (*arch.constraints, *(r.constraint for r in getattr(arch, "notes", ()))):
        named |= c.symbols()
    for atom in _piecewise(arch):
        num, den = sympy.fraction(sympy.together(atom.args[0]))
        factors = sympy.Mul.make_args(num)
        if len(factors) == 2 and isinstance(den, sympy.Symbol) \
                and all(isinstance(f, sympy.Symbol) for f in factors) \
                and len({*factors, den}) == 3 and {*factors, den} <= free - named:
            x, y = sorted(factors, key=lambda s: s.name)
            return atom, x, y, den
    return None


def _fresh(arch: Architecture, base: str, meaning: str) -> sympy.Symbol:
    names = {s.name for s in (*arch.settable, *arch.fixed)}
    while base in names:
        base += "'"
    return symbols.declare(base, meaning)


def _map(term: Term, swap: dict) -> Term:
    def sub(e):
        return None if e is None else sympy.sympify(e).xreplace(swap)

    return dataclasses.replace(term, expr=sub(term.expr), times=sub(term.times),
                               active_times=sub(term.active_times),
                               children=tuple(_map(c, swap) for c in term.children))


def _split(arch: Architecture, atom, x, y, b) -> list[tuple[str, tuple[str, ...], Architecture]]:
    up = 1 if isinstance(atom, sympy.ceiling) else 0
    prod = f"{pretty(x * y)}"
    xq = _fresh(arch, f"{x.name}'", f"{x.name} // {b.name}")
    out = []
    # B | x·y: x = B·x'
    out.append((f"{b.name} divides {prod}", (f"{x.name} = {b.name}·{xq.name} (a sub-lattice "
                                             f"of {b.name} | {prod})",),
                {x: b * xq}, {atom: xq * y}, [xq]))
    # B ∤ x·y: x = (r + B')·x' + r, B = (r + B')·y (0 < r·y < B)
    rx = _fresh(arch, f"r_{x.name}", f"{x.name} mod ({b.name} // {y.name})")
    bt = _fresh(arch, f"{b.name}'", f"{b.name} // {y.name} − ({x.name} mod ({b.name} // "
                f"{y.name}))")
    out.append((f"{b.name} does not divide {prod}",
                (f"{x.name} = ({rx.name} + {bt.name})·{xq.name} + {rx.name}, {b.name} = "
                 f"({rx.name} + {bt.name})·{y.name} (a sub-lattice, {y.name} | {b.name}, and a "
                 f"sub-region, {rx.name}·{y.name} < {b.name}, of {b.name} ∤ {prod}; floor = "
                 f"{xq.name})",),
                {x: (rx + bt) * xq + rx, b: (rx + bt) * y}, {atom: xq + up}, [xq, rx, bt]))
    return _written(arch, out)


def one_divisor(arch: Architecture) -> tuple[sympy.Expr, sympy.Expr, sympy.Symbol, sympy.Symbol,
                                             sympy.Symbol] | None:
    """Two floors of two fields by one third, ``floor(X/I)`` and ``floor(Y/I)``, where a
    constraint (or the formula's domain) orders X ≤ Y and no other constraint names X, Y or I:
    (atom of X, atom of Y, X, Y, I); else None. ERNIE 4.5 MoE's experts sit on
    floor(L/I) − floor(S/I) layers (every I-th from the start index S)."""
    free = {s for s in arch.settable if not symbols.info(s).flag}
    cons = (*arch.constraints, *(r.constraint for r in getattr(arch, "notes", ())))
    orders = {(c.lhs, c.rhs) if c.op == "<=" else (c.rhs, c.lhs) for c in cons
              if isinstance(c, Relation) and c.op in ("<=", ">=") and c.when is None}
    by: dict[sympy.Symbol, dict[sympy.Symbol, sympy.Expr]] = {}
    for atom in _piecewise(arch):
        num, den = sympy.fraction(sympy.together(atom.args[0]))
        if isinstance(atom, sympy.floor) and isinstance(num, sympy.Symbol) \
                and isinstance(den, sympy.Symbol) and {num, den} <= free and num != den:
            by.setdefault(den, {})[num] = atom
    for i, atoms in sorted(by.items(), key=lambda kv: kv[0].name):
        for x, y in sorted(orders, key=lambda o: (str(o[0]), str(o[1]))):
            if x in atoms and y in atoms and x != y and i not in (x, y):
                named = {s for c in cons if not (isinstance(c, Relation)
                                                 and {c.lhs, c.rhs} == {x, y})
                         for s in c.symbols()}
                if not named & {x, y, i}:
                    return atoms[x], atoms[y], x, y, i
    return None


def _divisor_split(arch: Architecture, ax, ay, x, y, i):
    """The four sub-cases of floor(X/I) and floor(Y/I), X ≤ Y: X = I·a + ρ, Y = I·(a + b) + τ,
    ρ and τ each 0 or not; where both are not, I = ρ + τ + I' (a sub-region, ρ + τ < I, of
    ρ, τ < I). Both floors are then polynomials (a and a + b) and every field of degree two at
    most. b ≥ 1 and a ≥ 1 cover all but b = 0 (X and Y in one period) and a = 0 (X below I),
    which follow by polynomial identity, as the prover's own quotients do."""
    a = _fresh(arch, f"{x.name}'", f"{x.name} // {i.name}")
    b = _fresh(arch, f"{y.name}'", f"{y.name} // {i.name} − {x.name} // {i.name}")
    rx = _fresh(arch, f"r_{x.name}", f"{x.name} mod {i.name}")
    ry = _fresh(arch, f"r_{y.name}", f"{y.name} mod {i.name}")
    it = _fresh(arch, f"{i.name}'", f"{i.name} less the remainders {x.name} mod {i.name} and "
                f"{y.name} mod {i.name} that are not 0")
    out = []
    for r1, r2 in ((0, 0), (0, 1), (1, 0), (1, 1)):
        ρ, τ = (rx if r1 else sympy.Integer(0)), (ry if r2 else sympy.Integer(0))
        rests = [r for r in (ρ, τ) if r != 0]
        div = i if not rests else sympy.Add(*rests, it)
        written = {x: div * a + ρ, y: div * (a + b) + τ, **({i: div} if rests else {})}
        label = ", ".join(f"{i.name} {'does not divide' if r else 'divides'} {f.name}"
                          for r, f in ((r1, x), (r2, y)))
        said = f"{x.name} = {pretty(written[x])}, {y.name} = {pretty(written[y])}" + (
            f", {i.name} = {pretty(div)}" if rests else "")
        region = (f" (a sub-region, {pretty(sympy.Add(*rests))} < {i.name}, of each remainder "
                  f"below {i.name})" if len(rests) > 1 else "")
        out.append((label, (said + region + f"; floor({x.name}/{i.name}) = {a.name}, "
                            f"floor({y.name}/{i.name}) = {a.name} + {b.name}",),
                    written, {ax: a, ay: a + b}, [a, b, *rests, *([it] if rests else [])]))
    return _written(arch, out)


def _written(arch: Architecture, out) -> list[tuple[str, tuple[str, ...], Architecture]]:
    """Each sub-case (label, notes, fields written over new parameters, what each piecewise atom
    becomes, the new parameters) as a sub-architecture: every field stays a hyperparameter,
    equal to its expression (the first constraints: the prover eliminates it, and its value
    ranges see the expression's degree)."""
    from paramcount.model.registry import Architecture

    subs: list[tuple[str, tuple[str, ...], Architecture]] = []
    for label, notes, written, swap, new in out:
        written = {k: sympy.expand(v.xreplace({j: w for j, w in written.items() if j != k}))
                   for k, v in written.items()}  # every field in the new parameters alone
        equal = tuple(Relation(k, "==", v, reason=f"the sub-case {label}")
                      for k, v in written.items())
        subs.append((label, notes, Architecture(
            id=arch.id, title=arch.title, source=arch.source, formula=_map(arch.formula, swap),
            required=(), reference=arch.reference, counting=arch.counting,
            optional={**arch.optional, **dict.fromkeys(new, sympy.Integer(1))},
            constraints=(*equal, *arch.constraints), fixed=dict(arch.fixed),
            family=arch.family, frameworks=arch.frameworks)))
    return subs


def _piecewise(arch: Architecture) -> list[sympy.Expr]:
    """The floors and ceilings of the formula, in a fixed order."""
    exprs = [e for _, _, t in arch.formula.walk()
             for e in (t.expr, t.times, t.active_times) if e is not None]
    return sorted({a for e in exprs for a in sympy.sympify(e).atoms(sympy.floor, sympy.ceiling)},
                  key=sympy.default_sort_key)


def subcases(arch: Architecture, depth: int = 0) -> list[tuple[str, tuple[str, ...],
                                                                 Architecture]]:
    """(label, notes, sub-architecture) of each sub-case derive writes for ``arch``: the
    architecture itself, unlabelled, where no product floor is found."""
    if depth >= DEPTH:
        return [("", (), arch)]
    product = product_floor(arch)
    divisor = one_divisor(arch) if product is None else None
    if product is not None:
        split = _split(arch, *product)
    elif divisor is not None:
        split = _divisor_split(arch, *divisor)
    else:
        return [("", (), arch)]
    return [(", ".join(x for x in (label, more) if x), notes + notes2, sub2)
            for label, notes, sub in split
            for more, notes2, sub2 in subcases(sub, depth + 1)]


def shared_periods(arch: Architecture) -> str:
    """Where two floors or ceilings of the formula divide one field L (of degree one, a constant
    coefficient, in both numerators) by two other fields, the reason the proof stops, in those
    terms; else ""."""
    free = {s for s in arch.settable if not symbols.info(s).flag}
    by: dict[sympy.Symbol, dict[sympy.Symbol, sympy.Expr]] = {}
    for atom in _piecewise(arch):
        num, den = sympy.fraction(sympy.together(atom.args[0]))
        if not (isinstance(den, sympy.Symbol) and den in free):
            continue
        num = sympy.expand(num)
        for x in sorted(num.free_symbols & free - {den}, key=lambda s: s.name):
            if sympy.degree(num, x) == 1 and num.coeff(x, 1).is_Integer:
                by.setdefault(x, {}).setdefault(den, atom)
    for x, dens in sorted(by.items(), key=lambda kv: kv[0].name):
        if len(dens) > 1:
            (p1, a1), (p2, a2) = sorted(dens.items(), key=lambda kv: kv[0].name)[:2]
            return (f"two periods of one layer count {x.name}, {p1.name} and {p2.name}: "
                    "jointly periodic, modulo their lcm; the prover splits one quotient at a "
                    f"time, and {x.name} = {p1.name}·q + r leaves the other's numerator no "
                    f"parameter of constant coefficient ({pretty(a1)}, {pretty(a2)})")
    return ""
