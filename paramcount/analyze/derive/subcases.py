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

if TYPE_CHECKING:
    from paramcount.model.registry import Architecture

__all__ = ["product_floor", "shared_periods", "subcases"]

DEPTH = 2  # product floors split in turn, at most


def product_floor(arch: Architecture) -> tuple[sympy.Expr, sympy.Symbol, sympy.Symbol,
                                               sympy.Symbol] | None:
    """The first ``floor(x·y/B)`` (or ceiling) of the formula, x, y, B three distinct settable
    non-flag fields that no constraint names: (atom, x, y, B); else None."""
    free = {s for s in arch.settable if not symbols.info(s).flag}
    named: set[sympy.Symbol] = set()
    for c in (*arch.constraints, *(r.constraint for r in getattr(arch, "notes", ()))):
        named |= c.symbols()
    exprs = [e for _, _, t in arch.formula.walk()
             for e in (t.expr, t.times, t.active_times) if e is not None]
    atoms = sorted({a for e in exprs for a in sympy.sympify(e).atoms(sympy.floor, sympy.ceiling)},
                   key=sympy.default_sort_key)
    for atom in atoms:
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
    from paramcount.core.hparams import Relation
    from paramcount.model.registry import Architecture

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
    subs: list[tuple[str, tuple[str, ...], Architecture]] = []
    for label, notes, written, swap, new in out:
        whole = {b: written[b]} if b in written else {}  # every field in the new parameters alone
        written = {k: sympy.expand(v.xreplace(whole)) for k, v in written.items()}
        # each field stays a hyperparameter, equal to its expression (the first constraints: the
        # prover eliminates it, and its value ranges see the expression's degree)
        equal = tuple(Relation(k, "==", v, reason=f"the sub-case {label}")
                      for k, v in written.items())
        subs.append((label, notes, Architecture(
            id=arch.id, title=arch.title, source=arch.source, formula=_map(arch.formula, swap),
            required=(), reference=arch.reference, counting=arch.counting,
            optional={**arch.optional, **dict.fromkeys(new, sympy.Integer(1))},
            constraints=(*equal, *arch.constraints), fixed=dict(arch.fixed),
            family=arch.family, frameworks=arch.frameworks)))
    return subs


def subcases(arch: Architecture, depth: int = 0) -> list[tuple[str, tuple[str, ...],
                                                                 Architecture]]:
    """(label, notes, sub-architecture) of each sub-case derive writes for ``arch``: the
    architecture itself, unlabelled, where no product floor is found."""
    found = product_floor(arch) if depth < DEPTH else None
    if found is None:
        return [("", (), arch)]
    return [(", ".join(x for x in (label, more) if x), notes + notes2, sub2)
            for label, notes, sub in _split(arch, *found)
            for more, notes2, sub2 in subcases(sub, depth + 1)]


def shared_periods(arch: Architecture) -> str:
    """Where two floors or ceilings of the formula divide one field L (of degree one, a constant
    coefficient, in both numerators) by two other fields, the reason the proof stops, in those
    terms; else ""."""
    free = {s for s in arch.settable if not symbols.info(s).flag}
    exprs = [e for _, _, t in arch.formula.walk()
             for e in (t.expr, t.times, t.active_times) if e is not None]
    by: dict[sympy.Symbol, dict[sympy.Symbol, sympy.Expr]] = {}
    for atom in sorted({a for e in exprs for a in sympy.sympify(e).atoms(sympy.floor,
                                                                         sympy.ceiling)},
                       key=sympy.default_sort_key):
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
