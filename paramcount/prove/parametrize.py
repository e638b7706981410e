"""Constraints as substitutions: every point of a case's parameter space is a valid set.

Each constraint writes its own substitution (``Constraint.substitute``) through the
:class:`Space` below: ``Divisible(d_e, M)`` gives ``d_e = M·d_e'``, ``Divisible(M, M_kv)``
gives ``M = M_kv·M'``, ``Relation(x, "==", y, when=flag)`` eliminates ``y`` where the flag is
1, ``Relation(x, "<=", y)`` gives ``y = x + y'``. A formula term that is polynomial only
piecewise (KroneckerDelta, floor) splits the case into sub-cases.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import sympy

from paramcount import symbols
from paramcount.formula import pretty
from paramcount.prove.case import (
    Case,
    UnsupportedError,
    integer_poly,
    is_poly,
    structural_symbols,
)

if TYPE_CHECKING:
    from paramcount.hparams import Constraint
    from paramcount.registry import Architecture

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

    def multiple(self, dividend, divisor, c: Constraint) -> None:
        a, b = self.cur(dividend), self.cur(divisor)
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


def _split_of(atom: sympy.Expr, free: Sequence[sympy.Symbol]):
    """Sub-cases on which ``atom`` (KroneckerDelta, floor, ceiling) is a polynomial."""
    if isinstance(atom, sympy.KroneckerDelta):
        a, b = atom.args
        return [(("eq", a, b),), (("neq", a, b),)]
    if isinstance(atom, (sympy.floor, sympy.ceiling)):
        num, den = sympy.fraction(sympy.together(atom.args[0]))
        if isinstance(atom, sympy.floor) and isinstance(num, sympy.Symbol) \
                and isinstance(den, sympy.Symbol) and {num, den} <= set(free):
            # floor(a/b) of two free parameters (KerasHub's hidden_dim // num_heads): b divides
            # a, or a = b·q + r with 0 < r < b; each side is a polynomial parametrization.
            return [(("divides", num, den),), (("remainder", num, den),)]
        if den.is_Integer and den > 1:
            for x in sorted(num.free_symbols & set(free), key=lambda s: s.name):
                if sympy.degree(num, x) == 1:
                    return [(("mod", x, int(den), r),) for r in range(int(den))]
    raise UnsupportedError(f"{pretty(atom)} is not a polynomial and the prover cannot split it")


def parametrize(arch: Architecture, flags: Mapping[sympy.Symbol, int],
                splits: tuple = ()) -> Case:
    """Write the constraints of one case as substitutions over fresh parameters.

    ``splits`` are sub-case conditions (from :func:`_split_of`): ``("eq", a, b)`` imposes a = b,
    ``("neq", a, b)`` a ≠ b, ``("mod", x, c, r)`` x ≡ r (mod c), ``("divides", a, b)`` b | a,
    ``("remainder", a, b)`` b ∤ a, each over the parameters.
    """
    space = Space(arch, flags)
    for constraint in arch.constraints:
        constraint.substitute(space)

    unequal: list[tuple[sympy.Expr, sympy.Expr]] = []
    remainders: list[tuple[sympy.Symbol, sympy.Symbol]] = []  # (r, b) of a = b·q + r, 0 < r < b
    conditions: list[str] = []
    checks: list[tuple] = []
    # Head-width floors first: they substitute d_e and M, and the other conditions (found first,
    # in the original symbols; see the ordering of ``odd`` below) are then read through them.
    for kind, *args in sorted(splits, key=lambda a: a[0] not in ("divides", "remainder")):
        if kind == "eq":
            a, b = (sympy.expand(space.cur(x)) for x in args)
            if space.eliminate(a, b) is None:
                raise UnsupportedError(f"{arch.id}: cannot impose {pretty(a)} = {pretty(b)}")
            conditions.append(f"{pretty(space.orig(args[0]))} = {pretty(space.orig(args[1]))}")
            checks.append(("eq", space.orig(args[0]), space.orig(args[1])))
        elif kind == "neq":
            unequal.append(tuple(sympy.expand(space.cur(x)) for x in args))
            conditions.append(f"{pretty(space.orig(args[0]))} ≠ {pretty(space.orig(args[1]))}")
            checks.append(("neq", space.orig(args[0]), space.orig(args[1])))
        elif kind in ("divides", "remainder"):
            a, b = args
            _floor_split(space, kind, a, b, remainders, conditions, checks)
        else:
            x, c, rem = args
            checks.append(("mod", space.orig(x), c, rem))
            q = space.fresh(x.name, (space.orig(x) - rem) / c)
            space.assign(x, c * q + rem)
            conditions.append(f"{pretty(space.orig(x))} ≡ {rem} mod {c}")
            space.notes.append(f"{x.name} = {c}·{q.name}" + (f" + {rem}" if rem else ""))

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
        e = _resolve_floors(e.xreplace(defaults_sub),
                            [r / space.sub.get(b, b) for r, b in remainders], free)
        for a, b in unequal:
            e = e.xreplace({sympy.KroneckerDelta(a, b): 0, sympy.KroneckerDelta(b, a): 0})
        e = sympy.cancel(sympy.expand(e))
        odd = sorted((t for t in sympy.preorder_traversal(e)
                      if isinstance(t, (sympy.KroneckerDelta, sympy.floor, sympy.ceiling))),
                     key=lambda t: not isinstance(t, sympy.KroneckerDelta))
        if odd:
            raise NeedsSplit(_split_of(odd[0], free))
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
                given, space.inverse, formula, degrees, tuple(space.notes), tuple(conditions),
                tuple(unequal), tuple(checks))


def _floor_split(space: Space, kind: str, a: sympy.Symbol, b: sympy.Symbol,
                 remainders: list, conditions: list[str], checks: list[tuple]) -> None:
    """Impose b | a (``divides``: a = b·q) or b ∤ a (``remainder``: a = b·q + r, b = r + t)."""
    oa, ob = space.orig(a), space.orig(b)
    checks.append((kind, oa, ob))
    # the label without multiples of b (d_e − M after "M <= d_e": "M divides d_e")
    shown = sympy.Add(*[t for t in sympy.Add.make_args(sympy.expand(oa))
                        if not integer_poly(t / ob, sorted(ob.free_symbols | t.free_symbols,
                                                           key=lambda x: x.name))])
    if kind == "divides":
        q = space.fresh(a.name, oa / ob)
        space.assign(a, b * q)
        conditions.append(f"{pretty(ob)} divides {pretty(shown)}")
        space.notes.append(f"{a.name} = {b.name}·{q.name}")
        return
    # a = b·q + r with 0 < r < b, i.e. b = r + t (r, t ≥ 1), floor(a/b) = q. Fresh parameters
    # are positive, so q = 0 (a < b) is left out; it follows from the polynomial identity in q,
    # as the equality of "<=" relations does in Space.at_most.
    q = space.fresh(a.name, sympy.floor(oa / ob))
    r = space.fresh("r", sympy.Mod(oa, ob))
    t = space.fresh(b.name, ob - sympy.Mod(oa, ob))
    space.assign(b, r + t)
    space.assign(a, (r + t) * q + r)
    remainders.append((r, b))
    conditions.append(f"{pretty(ob)} does not divide {pretty(shown)}")
    space.notes.append(f"{a.name} = {b.name}·{q.name} + {r.name}, {b.name} = {r.name} + {t.name}")


def _resolve_floors(e: sympy.Expr, fractions: Sequence[sympy.Expr],
                    free: Sequence[sympy.Symbol]) -> sympy.Expr:
    """Replace each floor(X) whose X is an integer polynomial k in the free parameters, or k plus
    one of ``fractions`` (r/b of a remainder case, 0 < r/b < 1), by k: its exact value there."""
    def value(atom):
        x = sympy.cancel(atom.args[0])
        for frac in (0, *fractions):
            k = sympy.cancel(x - frac)
            if integer_poly(k, free):
                return k
        return atom

    return e.replace(lambda t: isinstance(t, sympy.floor), value)


def case_flags(arch: Architecture) -> list[sympy.Symbol]:
    """The 0/1 flags that are dimensions of the cases: those the formula, the fixed values or the
    constraints use. A flag used only in the defaults of others (Gemma's ``post_norm``, the
    shorthand for ``post_attn_norm`` and ``post_ffw_norm``) adds no case of its own: the flags it
    defaults are enumerated, and it keeps its default."""
    used = set(arch.formula.free_symbols())
    for e in arch.fixed.values():
        used |= sympy.sympify(e).free_symbols
    for c in arch.constraints:
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
