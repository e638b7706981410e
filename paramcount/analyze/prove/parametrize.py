"""Constraints as substitutions: every point of a case's parameter space is a valid set.

Each constraint writes its own substitution (``Constraint.substitute``) through the
:class:`Space` below: ``Divisible(d_e, M)`` gives ``d_e = M·d_e'``, ``Divisible(M, M_kv)``
gives ``M = M_kv·M'``, ``Relation(x, "==", y, when=flag)`` eliminates ``y`` where the flag is
1, ``Relation(x, "<=", y)`` gives ``y = x + y'``. A formula term that is polynomial only
piecewise (KroneckerDelta, floor) splits the case into sub-cases (:mod:`paramcount.analyze.prove.floors`);
a divisibility of a floor (RoPE's even ``hidden_size // num_attention_heads``) is imposed once
the floor's split has made it a polynomial.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING

import sympy

from paramcount.analyze.prove.case import (
    Case,
    UnsupportedError,
    integer_poly,
    is_poly,
    structural_symbols,
)
from paramcount.analyze.prove.floors import (
    PIECEWISE,
    innermost,
    resolve_floors,
    split_floor,
    split_of,
    split_root,
)
from paramcount.core import symbols
from paramcount.core.formula import pretty

if TYPE_CHECKING:
    from paramcount.core.hparams import Constraint
    from paramcount.model.registry import Architecture

__all__ = ["Space", "case_flags", "case_of", "cases", "parametrize"]


class Space:
    """The parameter space of one case while its constraints are written as substitutions."""

    def __init__(self, arch: Architecture, flags: Mapping[sympy.Symbol, int]):
        self.arch = arch
        self.fl = {s: sympy.Integer(v) for s, v in flags.items()}
        # flags outside the case (see case_flags) keep their defaults: never free parameters
        self.settable = [s for s in arch.settable
                         if s not in self.fl and not symbols.info(s).flag]
        self.sub: dict[sympy.Symbol, sympy.Expr] = {}
        self.inverse: dict[sympy.Symbol, sympy.Expr] = {}
        self.notes: list[str] = []
        self.names = {s.name for s in self.settable}
        self.deferred: list[tuple[sympy.Expr, sympy.Expr, Constraint]] = []  # floors' multiples

    # --- bookkeeping
    def free(self) -> list[sympy.Symbol]:
        return [s for s in [*self.settable, *self.inverse] if s not in self.sub]

    def cur(self, e) -> sympy.Expr:
        return sympy.sympify(e).xreplace(self.fl).xreplace(self.sub)

    def orig(self, e) -> sympy.Expr:
        return sympy.sympify(e).xreplace(self.inverse)

    def assign(self, x: sympy.Symbol, e: sympy.Expr) -> None:
        for k in list(self.sub):
            self.sub[k] = sympy.expand(self.sub[k].xreplace({x: e}))
        self.sub[x] = sympy.expand(e)

    def fresh(self, base: str, meaning: sympy.Expr) -> sympy.Symbol:
        name = base + "'"
        while name in self.names:
            name += "'"
        self.names.add(name)
        sym = sympy.Symbol(name, integer=True, positive=True)
        self.inverse[sym] = meaning
        return sym

    def eliminate(self, a: sympy.Expr, b: sympy.Expr) -> tuple[sympy.Symbol, sympy.Expr] | None:
        """Impose a = b by eliminating one side, a free symbol not in the other (returned with
        what it became); None if neither side is one."""
        for x, e in ((b, a), (a, b)):
            if isinstance(x, sympy.Symbol) and x in self.free() and x not in e.free_symbols:
                self.assign(x, e)
                return x, e
        return None

    # --- what constraints call (Constraint.substitute)
    def cannot(self, c: Constraint) -> None:
        raise UnsupportedError(f"{self.arch.id}: cannot parametrize '{c.describe()}'")

    def holds(self, when, c: Constraint) -> bool:
        w = self.cur(when)
        if not w.is_Number:
            raise UnsupportedError(f"{self.arch.id}: '{c.describe()}': condition is not a flag")
        return w != 0

    def multiple(self, dividend, divisor, c: Constraint, a=None) -> None:
        if a is None and self.cur(dividend).has(sympy.floor):  # after the floor's split
            self.deferred.append((dividend, divisor, c))
            return
        a, b = self.cur(dividend) if a is None else a, self.cur(divisor)
        if integer_poly(a / b, self.free()):
            return
        for x in sorted(a.free_symbols & set(self.free()),
                        key=lambda s: (s not in self.inverse, s.name)):
            q = self.fresh(x.name, self.orig(x) / sympy.sympify(divisor).xreplace(self.fl))
            if integer_poly(a.xreplace({x: b * q}) / b, [y for y in self.free() if y != x]):
                self.assign(x, b * q)
                self.notes.append(f"{x.name} = {pretty(b)}·{q.name}"
                                  + ("" if a == x else " (a sub-lattice of the valid values)"))
                return
            del self.inverse[q]
        self.cannot(c)

    def implied_at_most(self, small: sympy.Expr, big: sympy.Expr) -> bool:
        """Whether small ≤ big holds already at every point (M ≤ M·d_e' once d_e = M·d_e'):
        big − small, with each free parameter x written 1 + x, has no negative coefficient."""
        free = self.free()
        diff = sympy.expand((big - small).xreplace({x: x + 1 for x in free}))
        if not integer_poly(diff, free):
            return False
        return diff == 0 or all(co >= 0 for co in sympy.Poly(diff, *free).coeffs()) \
            if free else diff >= 0

    def equal(self, lhs, rhs, c: Constraint) -> None:
        lhs, rhs = self.cur(lhs), self.cur(rhs)
        if sympy.expand(lhs - rhs) == 0:
            return
        done = self.eliminate(lhs, rhs)
        if done is None:
            self.cannot(c)
        else:
            self.notes.append(f"{done[0].name} = {pretty(done[1])} ({c.describe()})")

    def at_most(self, small, big, c: Constraint) -> None:
        small, big = self.cur(small), self.cur(big)
        if self.implied_at_most(small, big):
            return
        if not (isinstance(big, sympy.Symbol) and big in self.free()
                and big not in small.free_symbols):
            self.cannot(c)
        t = self.fresh(big.name, self.orig(big) - self.orig(small))
        self.assign(big, small + t)
        self.notes.append(f"{big.name} = {pretty(small)} + {t.name} ({c.describe()}; "
                          f"{t.name} ≥ 1 covers all but the equality, which follows by "
                          "polynomial identity)")


class NeedsSplit(Exception):
    """A formula term that is polynomial only piecewise: the case splits into sub-cases."""

    def __init__(self, alternatives):
        super().__init__(alternatives)
        self.alternatives = alternatives


def parametrize(arch: Architecture, flags: Mapping[sympy.Symbol, int],
                splits: tuple = ()) -> Case:
    """Write the constraints of one case as substitutions over fresh parameters.

    ``splits`` are sub-case conditions (from :func:`paramcount.analyze.prove.floors.split_of`), imposed
    in the order found (equalities last): ``("eq", a, b)`` a = b, ``("neq", a, b)`` a ≠ b,
    ``("mod", x, c, r)`` x ≡ r (mod c), ``("divides", A, B)`` B | A, ``("remainder", A, B)``
    B ∤ A, ``("square", X)`` / ``("nonsquare", X)`` X a square or not (for floor(√X)), each
    over the parameters.
    """
    space = Space(arch, flags)
    # what a forward pass needs (the notes: an even rotary width) is sampled inside too: the
    # formula holds outside, but a framework's validator may refuse there
    for constraint in (*arch.constraints, *(r.constraint for r in getattr(arch, "notes", ()))):
        constraint.substitute(space)

    unequal: list[tuple[sympy.Expr, sympy.Expr]] = []
    fractions: list[sympy.Expr] = []  # A/B − floor(A/B) of each floor split, in [0, 1)
    roots: list[tuple[sympy.Expr, sympy.Expr]] = []  # (X, floor(√X)) of each root split
    conditions: list[tuple[bool, str]] = []  # (not a floor's, text): floors' first in labels
    checks: list[tuple] = []
    # An equality eliminates a parameter: imposed after the floors' splits, which were found in
    # the parameters before it (KroneckerDelta terms are found first; see ``innermost``).
    for kind, *args in sorted(splits, key=lambda a: a[0] in ("eq", "neq")):
        if kind == "eq":
            a, b = (sympy.expand(space.cur(x)) for x in args)
            if space.eliminate(a, b) is None:
                raise UnsupportedError(f"{arch.id}: cannot impose {pretty(a)} = {pretty(b)}")
            conditions.append((True, f"{pretty(space.orig(args[0]))} = "
                                     f"{pretty(space.orig(args[1]))}"))
            checks.append(("eq", space.orig(args[0]), space.orig(args[1])))
        elif kind == "neq":
            unequal.append(tuple(sympy.expand(space.cur(x)) for x in args))
            conditions.append((True, f"{pretty(space.orig(args[0]))} ≠ "
                                     f"{pretty(space.orig(args[1]))}"))
            checks.append(("neq", space.orig(args[0]), space.orig(args[1])))
        elif kind in ("divides", "remainder"):
            said: list[str] = []
            split_floor(space, kind, args[0], args[1], fractions, said, checks)
            conditions += [(False, t) for t in said]
        elif kind in ("square", "nonsquare"):
            said = []
            split_root(space, kind, args[0], roots, said, checks)
            conditions += [(False, t) for t in said]
        else:
            x, c, rem = args
            checks.append(("mod", space.orig(x), c, rem))
            q = space.fresh(x.name, (space.orig(x) - rem) / c)
            space.assign(x, c * q + rem)
            conditions.append((True, f"{pretty(space.orig(x))} ≡ {rem} mod {c}"))
            space.notes.append(f"{x.name} = {c}·{q.name}" + (f" + {rem}" if rem else ""))
    for dividend, divisor, c in space.deferred:  # a floor's multiple, once the floor is split
        a = resolve_floors(space.cur(dividend), [space.cur(f) for f in fractions], space.free(),
                           roots)
        odd = [t for t in sympy.preorder_traversal(a) if isinstance(t, PIECEWISE)]
        if odd:
            raise NeedsSplit(split_of(innermost(odd)[0], space.free()))
        space.multiple(dividend, divisor, c, a=sympy.expand(a))

    free = tuple(sorted(space.free(), key=lambda s: s.name))
    given = {s: space.sub.get(s, s) for s in space.settable}
    fixed = {k: sympy.sympify(v) for k, v in arch.fixed.items()}
    defaults_sub = {**space.fl, **given}
    formula: dict[str, sympy.Expr] = {}
    for lf in arch.formula.leaves():
        e = lf.expr
        for _ in range(10):
            if not (e.free_symbols & set(fixed)):
                break
            e = e.xreplace(fixed)
        e = resolve_floors(e.xreplace(defaults_sub), [space.cur(f) for f in fractions], free,
                           roots)
        for a, b in unequal:
            e = e.xreplace({sympy.KroneckerDelta(a, b): 0, sympy.KroneckerDelta(b, a): 0})
        e = sympy.cancel(sympy.expand(e))
        odd = innermost([t for t in sympy.preorder_traversal(e) if isinstance(t, PIECEWISE)])
        if odd:
            raise NeedsSplit(split_of(odd[0], free))
        if not is_poly(e, free):
            label = ", ".join(f"{k.name}={v}" for k, v in flags.items()) or "(no options)"
            raise UnsupportedError(f"{arch.id} [{label}]: {lf.path} = {pretty(e)} is not "
                                   "a polynomial in the free parameters")
        formula[lf.path] = sympy.expand(e)
    degrees = {x: int(max((sympy.degree(e, x) if e.has(x) else 0) for e in formula.values()))
               for x in free}
    struct: set[sympy.Symbol] = set()
    for s in structural_symbols(arch):
        if s in given:
            struct |= given[s].free_symbols & set(free)
    return Case(arch, tuple((s.name, int(v)) for s, v in flags.items()), free, frozenset(struct),
                given, space.inverse, formula, degrees, tuple(space.notes),
                tuple(t for _, t in sorted(conditions, key=lambda c: c[0])),
                tuple(unequal), tuple(checks))


def case_flags(arch: Architecture) -> list[sympy.Symbol]:
    """The 0/1 flags that are dimensions of the cases: those the formula, the fixed values or the
    constraints use. A flag used only in the defaults of others (Gemma's ``post_norm``, the
    shorthand for ``post_attn_norm`` and ``post_ffw_norm``) adds no case of its own: the flags it
    defaults are enumerated, and it keeps its default."""
    used = set(arch.formula.free_symbols())
    for e in arch.fixed.values():
        used |= sympy.sympify(e).free_symbols
    for c in (*arch.constraints, *(r.constraint for r in getattr(arch, "notes", ()))):
        used |= c.symbols()
    return [s for s in arch.settable if symbols.info(s).flag and s in used]


def cases(arch: Architecture) -> list[Case]:
    """Every option case of an architecture (each value of each 0/1 flag), parametrized."""
    flags = case_flags(arch)
    out: list[Case] = []
    for combo in itertools.product((0, 1), repeat=len(flags)):
        out += _split_cases(arch, dict(zip(flags, combo, strict=True)), ())
    return out


def _split_cases(arch, flags, splits, depth: int = 0) -> list[Case]:
    try:
        return [parametrize(arch, flags, splits)]
    except NeedsSplit as need:
        if depth > 4:
            raise UnsupportedError(f"{arch.id}: too many piecewise terms") from None
        return [c for alt in need.alternatives
                for c in _split_cases(arch, flags, splits + alt, depth + 1)]


def case_of(arch: Architecture, hparams: Mapping[str, int]) -> Case:
    """The case (flag values and sub-case conditions) a hyperparameter set belongs to."""
    flags = {s: int(hparams[s.name]) for s in case_flags(arch) if s.name in hparams}
    missing = [s for s in case_flags(arch) if s not in flags]
    if missing:
        resolved = arch.resolve({k: v for k, v in hparams.items()
                                 if symbols.get(k) in arch.settable})
        flags.update({s: int(resolved[s.name]) for s in missing})
    label = ", ".join(f"{k.name}={v}" for k, v in flags.items())
    candidates = [c for c in cases(arch) if ", ".join(f"{k}={v}" for k, v in c.flags) == label]
    for c in candidates:  # the sub-case whose conditions the values meet
        if not c.conditions or c.meets(hparams):
            return c
    return candidates[0] if candidates else parametrize(arch, flags)
