"""Proofs: a formula equals its Keras model as polynomials in every free hyperparameter.

A verification compares formula and Keras at one hyperparameter set. Both sides are polynomials
in the hyperparameters (once the constraints are written as substitutions), so agreement can be
*decided*, not sampled, under one stated assumption. This module does it, per architecture and per
*case* (each combination of values of the architecture's 0/1 option flags), component by
component (every formula leaf against the Keras weights it claims, plus a pseudo-component for
weights no leaf claims).

**Parametrization.** Flags are fixed by the case. Fixed values (``d_k = d_e/M``) are substituted.
Constraints become substitutions over fresh positive integer parameters, so that *every* point of
the parameter space is a valid hyperparameter set: ``Divisible(d_e, M)`` gives ``d_e = M·d_e'``,
``Divisible(M, M_kv)`` gives ``M = M_kv·M'``, ``Relation(x, "==", y, when=flag)`` eliminates ``y``
where the flag is 1, ``Relation(x, "<=", y)`` gives ``y = x + y'``. The formula is then a
polynomial F_c(θ) per component c in the free parameters θ.

**Assumption.** The Keras count K_c(θ) of every component is a polynomial in θ whose degree in
each parameter x is at most δ_x = (the formula's degree in x) + MARGIN. This is what "proof"
rests on; nothing black-box can establish it. The margin lets a Keras count one degree richer than
the formula be caught, and the extra nodes and points test the assumption as they go.

**Method.** *Structural* parameters make builds longer as they grow: the layer counts (``L``,
``L_*``) and any other parameter of a ``times`` that changes the number of Keras weights (measured
on two tiny builds; experts stacked in one weight do not). They take the small values 1..δ+1:
exact interpolation nodes (a polynomial of degree ≤ δ in x that vanishes at δ+1 values of x
vanishes identically). At each such node the other parameters are
drawn uniformly at random from large ranges S_x and the residual R_c = K_c − F_c evaluated: by the
Schwartz–Zippel lemma (per-variable form), a nonzero R_c vanishes at one random point with
probability ≤ Σ_x δ_x/|S_x|, at p independent points with probability ≤ (Σ_x δ_x/|S_x|)^p; p is
chosen so this bound is below TARGET_ERROR. The randomness is seeded (deterministic output); the
bound is over the choice of seed. Keras models are built without allocating any weight (a global
``keras.StatelessScope``; task models are not compiled), so huge sizes cost no memory.

**Residuals.** When some R_c is not zero, :func:`explain` recovers it exactly: the degree of R in
each parameter is found along a line through a random point, then R_c is interpolated on the
tensor grid of its support, checked at fresh random points, and written back in the original
symbols (``+2·L·d_e``).
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import math
import random
import re
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
import dataclasses
from dataclasses import dataclass
from fractions import Fraction

import sympy

from paramcount import registry, symbols
from paramcount.errors import ParamcountError
from paramcount.hparams import Divisible, Relation
from paramcount.registry import Architecture

__all__ = [
    "Case",
    "CaseProof",
    "ArchProof",
    "Residual",
    "UnsupportedError",
    "cases",
    "case_flags",
    "parametrize",
    "case_of",
    "prove",
    "prove_case",
    "explain",
    "explain_hparams",
    "proof_text",
    "proof_json",
    "MARGIN",
    "TARGET_ERROR",
]

MARGIN = 1  # Keras' assumed degree in each parameter: the formula's + MARGIN
TARGET_ERROR = 1e-9  # Schwartz–Zippel points are added until the bound is below this
MIN_POINTS, MAX_POINTS = 2, 16
VALUE_BITS = (24, 16, 12)  # hyperparameter values < 2^bits; lower budgets retried on failure
SEED = "paramcount-prove-1"
UNCLAIMED = "(unclaimed Keras weights)"


class UnsupportedError(ParamcountError):
    """An architecture whose constraints or formula the prover cannot parametrize."""


# --- parametrization ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    """One option case of an architecture, parametrized so every point is valid."""

    arch: Architecture
    flags: tuple[tuple[str, int], ...]
    free: tuple[sympy.Symbol, ...]
    structural: frozenset[sympy.Symbol]
    given: Mapping[sympy.Symbol, sympy.Expr]  # settable non-flag symbol -> expr in ``free``
    inverse: Mapping[sympy.Symbol, sympy.Expr]  # fresh parameter -> expr in original symbols
    formula: Mapping[str, sympy.Expr]  # leaf path -> polynomial in ``free``
    degrees: Mapping[sympy.Symbol, int]  # the formula's degree in each free parameter
    notes: tuple[str, ...] = ()
    conditions: tuple[str, ...] = ()  # sub-case conditions (d_emb ≠ d_e, d_k ≡ 1 mod 2)
    unequal: tuple[tuple[sympy.Expr, sympy.Expr], ...] = ()  # points must keep these apart
    checks: tuple[tuple, ...] = ()  # the conditions in the original symbols (for case_of)

    @property
    def label(self) -> str:
        parts = [f"{k}={v}" for k, v in self.flags] + list(self.conditions)
        return ", ".join(parts) or "(no options)"

    def admits(self, point: Mapping[sympy.Symbol, int]) -> bool:
        vals = {k: sympy.Integer(v) for k, v in point.items()}
        return all(a.xreplace(vals) != b.xreplace(vals) for a, b in self.unequal)

    def bound(self, x: sympy.Symbol) -> int:
        """δ_x: the assumed bound on Keras' degree in ``x``."""
        return self.degrees.get(x, 0) + MARGIN

    def hparams(self, point: Mapping[sympy.Symbol, int]) -> dict[str, int]:
        vals = {k: sympy.Integer(v) for k, v in point.items()}
        out = {s.name: int(e.xreplace(vals)) for s, e in self.given.items()}
        out.update(dict(self.flags))
        return out

    def to_original(self, expr: sympy.Expr) -> sympy.Expr:
        return sympy.expand(sympy.sympify(expr).xreplace(dict(self.inverse)))

    def describe_free(self) -> str:
        parts = []
        for x in self.free:
            if x in self.inverse:
                parts.append(f"{x.name} = {_pretty(self.inverse[x])}")
        return "; ".join(parts)


def _pretty(expr) -> str:
    return str(expr).replace("**", "^").replace("*", "·")


def _is_poly(expr: sympy.Expr, gens: Sequence[sympy.Symbol]) -> bool:
    return sympy.sympify(expr).is_polynomial(*gens) if gens else sympy.sympify(expr).is_number


def _integer_poly(expr: sympy.Expr, gens: Sequence[sympy.Symbol]) -> bool:
    expr = sympy.cancel(sympy.sympify(expr))
    if not _is_poly(expr, gens):
        return False
    if not gens:
        return expr.is_Integer
    return all(c.is_Integer for c in sympy.Poly(expr, *gens).coeffs())


def layer_counts(arch: Architecture) -> set[sympy.Symbol]:
    """Layer counts, always structural: the paper's ``L`` and ``L_*`` symbols (L_enc, L_dec,
    ALBERT's L_g and L_r ...). Shared layers (ALBERT) add no weight but still one call each."""
    return {s for s in arch.settable if re.fullmatch(r"L(_\w+)?", s.name)
            and not symbols.info(s).flag}


def structural_symbols(arch: Architecture) -> set[sympy.Symbol]:
    """*Candidate* structural hyperparameters: the layer counts and every symbol in a ``times``
    (or ``active_times``) of the tree. :func:`classify` keeps the layer counts and those other
    candidates that change the number of Keras weights (more layers to build), measured."""
    out: set[sympy.Symbol] = set(layer_counts(arch))
    for _, _, term in arch.formula.walk():
        out |= term.times.free_symbols
        if term.active_times is not None:
            out |= term.active_times.free_symbols
    return {s for s in out if not symbols.info(s).flag}


def classify(case: Case, oracle: _Oracle) -> Case:
    """Keep as structural the candidate parameters that change the number of Keras weights: one
    build with every parameter at 2, one more per candidate set to 3 (tiny models). Experts
    stacked along one axis of one weight (KerasHub's MoE layers) then take large random values
    like any width; a layer count takes the small interpolation nodes."""
    always = set()
    for s in layer_counts(case.arch):
        always |= case.given[s].free_symbols & set(case.free) if s in case.given else set()
    measure = sorted(case.structural - always, key=lambda s: s.name)
    if not measure:
        return case
    base = {x: 2 for x in case.free}
    n0 = oracle.weight_count(base)
    keep = {x for x in measure if oracle.weight_count({**base, x: 3}) != n0}
    return dataclasses.replace(case, structural=frozenset(always | keep))


def cases(arch: Architecture) -> list[Case]:
    """Every option case of an architecture (each value of each 0/1 flag), parametrized."""
    flags = case_flags(arch)
    out: list[Case] = []
    for combo in itertools.product((0, 1), repeat=len(flags)):
        out += _split_cases(arch, dict(zip(flags, combo)), ())
    return out


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


def _split_cases(arch, flags, splits, depth: int = 0) -> list[Case]:
    try:
        return [parametrize(arch, flags, splits)]
    except _NeedsSplit as need:
        if depth > 4:
            raise UnsupportedError(f"{arch.id}: too many piecewise terms") from None
        return [c for alt in need.alternatives
                for c in _split_cases(arch, flags, splits + alt, depth + 1)]


def case_of(arch: Architecture, hparams: Mapping[str, int]) -> Case:
    """The case (flag values) a hyperparameter set belongs to."""
    dims = case_flags(arch)
    flags = {s: int(hparams[s.name]) for s in dims if s.name in hparams}
    missing = [s for s in dims if s not in flags]
    for s in missing:
        flags[s] = int(arch.resolve({k: v for k, v in hparams.items()
                                     if symbols.get(k) in arch.settable})[s.name])
    label = ", ".join(f"{k.name}={v}" for k, v in flags.items())
    candidates = [c for c in cases(arch) if ", ".join(f"{k}={v}" for k, v in c.flags) == label]
    for c in candidates:  # the sub-case whose conditions the values meet
        if not c.conditions or _meets(c, hparams):
            return c
    return candidates[0] if candidates else parametrize(arch, flags)


def _meets(case: Case, hparams: Mapping[str, int]) -> bool:
    vals = {symbols.get(k): sympy.Integer(v) for k, v in hparams.items()}
    for kind, a, *rest in case.checks:
        av = a.xreplace(vals)
        if kind == "mod":
            ok = av.is_Integer and int(av) % rest[0] == rest[1]
        elif kind in ("divides", "remainder"):
            bv = rest[0].xreplace(vals)
            ok = av.is_Integer and bv.is_Integer and (int(av) % int(bv) == 0) == (kind == "divides")
        else:
            equal = av == rest[0].xreplace(vals)
            ok = equal if kind == "eq" else not equal
        if not ok:
            return False
    return True


class _NeedsSplit(Exception):
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
    raise UnsupportedError(f"{_pretty(atom)} is not a polynomial and the prover cannot split it")


def parametrize(arch: Architecture, flags: Mapping[sympy.Symbol, int],
                splits: tuple = ()) -> Case:
    """Write the constraints of one case as substitutions over fresh parameters.

    ``splits`` are sub-case conditions (from :func:`_split_of`): ``("eq", a, b)`` imposes a = b,
    ``("neq", a, b)`` a ≠ b, ``("mod", x, c, r)`` x ≡ r (mod c), each over the parameters.
    """
    fl = {s: sympy.Integer(v) for s, v in flags.items()}
    # flags outside the case (see case_flags) keep their defaults: never free parameters
    settable = [s for s in arch.settable if s not in fl and not symbols.info(s).flag]
    sub: dict[sympy.Symbol, sympy.Expr] = {}
    inverse: dict[sympy.Symbol, sympy.Expr] = {}
    notes: list[str] = []
    fresh_names = {s.name for s in settable}

    def free_now() -> list[sympy.Symbol]:
        return [s for s in [*settable, *inverse] if s not in sub]

    def cur(e) -> sympy.Expr:
        return sympy.sympify(e).xreplace(fl).xreplace(sub)

    def orig(e) -> sympy.Expr:
        return sympy.sympify(e).xreplace(inverse)

    def assign(x: sympy.Symbol, e: sympy.Expr) -> None:
        for k in list(sub):
            sub[k] = sympy.expand(sub[k].xreplace({x: e}))
        sub[x] = sympy.expand(e)

    def fresh(base: str, meaning: sympy.Expr) -> sympy.Symbol:
        name = base + "'"
        while name in fresh_names:
            name += "'"
        fresh_names.add(name)
        sym = sympy.Symbol(name, integer=True, positive=True)
        inverse[sym] = meaning
        return sym

    for c in arch.constraints:
        if isinstance(c, Divisible):
            a, b = cur(c.dividend), cur(c.divisor)
            if _integer_poly(a / b, free_now()):
                continue
            for x in sorted(a.free_symbols & set(free_now()), key=lambda s: (s not in inverse,
                                                                            s.name)):
                q = fresh(x.name, orig(x) / sympy.sympify(c.divisor).xreplace(fl))
                if _integer_poly(a.xreplace({x: b * q}) / b, [y for y in free_now() if y != x]):
                    exact = a == x
                    assign(x, b * q)
                    notes.append(f"{x.name} = {_pretty(b)}·{q.name}"
                                 + ("" if exact else " (a sub-lattice of the valid values)"))
                    break
                del inverse[q]
            else:
                raise UnsupportedError(f"{arch.id}: cannot parametrize '{c.describe()}'")
        elif isinstance(c, Relation):
            if c.when is not None:
                w = cur(c.when)
                if not w.is_Number:
                    raise UnsupportedError(f"{arch.id}: '{c.describe()}': condition is not a flag")
                if w == 0:
                    continue
            lhs, rhs = cur(c.lhs), cur(c.rhs)
            if c.op == "==":
                if sympy.expand(lhs - rhs) == 0:
                    continue
                for x, e in ((rhs, lhs), (lhs, rhs)):
                    if isinstance(x, sympy.Symbol) and x in free_now() and x not in e.free_symbols:
                        assign(x, e)
                        notes.append(f"{x.name} = {_pretty(e)} ({c.describe()})")
                        break
                else:
                    raise UnsupportedError(f"{arch.id}: cannot parametrize '{c.describe()}'")
            else:
                small, big = (lhs, rhs) if c.op == "<=" else (rhs, lhs)
                gap = sympy.expand(big - small)
                if gap.is_Number and gap >= 0:  # holds already (an earlier == made it so)
                    continue
                if isinstance(big, sympy.Symbol) and big in free_now() \
                        and big not in small.free_symbols:
                    t = fresh(big.name, sympy.Integer(0))
                    inverse[t] = orig(big) - orig(small)
                    assign(big, small + t)
                    notes.append(f"{big.name} = {_pretty(small)} + {t.name} ({c.describe()}; "
                                 f"{t.name} ≥ 1 covers all but the equality, which follows by "
                                 "polynomial identity)")
                else:
                    raise UnsupportedError(f"{arch.id}: cannot parametrize '{c.describe()}'")
        else:
            raise UnsupportedError(f"{arch.id}: unknown constraint {c!r}")

    unequal: list[tuple[sympy.Expr, sympy.Expr]] = []
    remainders: list[tuple[sympy.Symbol, sympy.Symbol]] = []  # (r, b) of a = b·q + r, 0 < r < b
    conditions: list[str] = []
    checks: list[tuple] = []
    # Head-width floors first: they substitute d_e and M, and the other conditions (found first,
    # in the original symbols; see the ordering of ``odd`` below) are then read through them.
    for action in sorted(splits, key=lambda a: a[0] not in ("divides", "remainder")):
        kind, *args = action
        if kind == "eq":
            a, b = (sympy.expand(cur(x)) for x in args)
            for x, e in ((b, a), (a, b)):
                if isinstance(x, sympy.Symbol) and x in free_now() and x not in e.free_symbols:
                    assign(x, e)
                    break
            else:
                raise UnsupportedError(f"{arch.id}: cannot impose {_pretty(a)} = {_pretty(b)}")
            conditions.append(f"{_pretty(orig(args[0]))} = {_pretty(orig(args[1]))}")
            checks.append(("eq", orig(args[0]), orig(args[1])))
        elif kind == "neq":
            unequal.append(tuple(sympy.expand(cur(x)) for x in args))
            conditions.append(f"{_pretty(orig(args[0]))} ≠ {_pretty(orig(args[1]))}")
            checks.append(("neq", orig(args[0]), orig(args[1])))
        elif kind in ("divides", "remainder"):
            a, b = args
            oa, ob = orig(a), orig(b)
            checks.append((kind, oa, ob))
            # the label without multiples of b (d_e − M after "M <= d_e": "M divides d_e")
            shown = sympy.Add(*[t for t in sympy.Add.make_args(sympy.expand(oa))
                                if not _integer_poly(t / ob, sorted(ob.free_symbols | t.free_symbols,
                                                                    key=lambda x: x.name))])
            if kind == "divides":
                q = fresh(a.name, oa / ob)
                assign(a, b * q)
                conditions.append(f"{_pretty(ob)} divides {_pretty(shown)}")
                notes.append(f"{a.name} = {b.name}·{q.name}")
            else:
                # a = b·q + r with 0 < r < b, i.e. b = r + t (r, t ≥ 1), floor(a/b) = q. Fresh
                # parameters are positive, so q = 0 (a < b) is left out; it follows from the
                # polynomial identity in q, as the equality of "<=" relations does above.
                q = fresh(a.name, sympy.floor(oa / ob))
                r = fresh("r", sympy.Mod(oa, ob))
                t = fresh(b.name, ob - sympy.Mod(oa, ob))
                assign(b, r + t)
                assign(a, (r + t) * q + r)
                remainders.append((r, b))
                conditions.append(f"{_pretty(ob)} does not divide {_pretty(shown)}")
                notes.append(f"{a.name} = {b.name}·{q.name} + {r.name}, {b.name} = {r.name} + "
                             f"{t.name}")
        else:
            x, c, rem = args
            checks.append(("mod", orig(x), c, rem))
            q = fresh(x.name, (orig(x) - rem) / c)
            assign(x, c * q + rem)
            conditions.append(f"{_pretty(orig(x))} ≡ {rem} mod {c}")
            notes.append(f"{x.name} = {c}·{q.name}" + (f" + {rem}" if rem else ""))

    free = tuple(sorted(free_now(), key=lambda s: s.name))
    given = {s: sub.get(s, s) for s in settable}
    fixed = {k: sympy.sympify(v) for k, v in arch.fixed.items()}
    defaults_sub = {**fl, **{s: given[s] for s in settable}}
    formula: dict[str, sympy.Expr] = {}
    for lf in arch.formula.leaves():
        e = lf.expr
        for _ in range(10):
            if not (e.free_symbols & set(fixed)):
                break
            e = e.xreplace(fixed)
        e = _resolve_floors(e.xreplace(defaults_sub), [r / sub.get(b, b) for r, b in remainders],
                            free)
        for a, b in unequal:
            e = e.xreplace({sympy.KroneckerDelta(a, b): 0, sympy.KroneckerDelta(b, a): 0})
        e = sympy.cancel(sympy.expand(e))
        odd = sorted((t for t in sympy.preorder_traversal(e)
                      if isinstance(t, (sympy.KroneckerDelta, sympy.floor, sympy.ceiling))),
                     key=lambda t: not isinstance(t, sympy.KroneckerDelta))
        if odd:
            raise _NeedsSplit(_split_of(odd[0], free))
        if not _is_poly(e, free):
            raise UnsupportedError(f"{arch.id} [{_label(flags)}]: {lf.path} = {_pretty(e)} is not "
                                   "a polynomial in the free parameters")
        formula[lf.path] = sympy.expand(e)
    degrees = {x: int(max((sympy.degree(e, x) if e.has(x) else 0) for e in formula.values()))
               for x in free}
    struct = set()
    for s in structural_symbols(arch):
        if s in given:
            struct |= given[s].free_symbols & set(free)
    return Case(arch, tuple((s.name, int(v)) for s, v in flags.items()), free, frozenset(struct),
                given, inverse, formula, degrees, tuple(notes), tuple(conditions),
                tuple(unequal), tuple(checks))


def _resolve_floors(e: sympy.Expr, fractions: Sequence[sympy.Expr],
                    free: Sequence[sympy.Symbol]) -> sympy.Expr:
    """Replace each floor(X) whose X is an integer polynomial k in the free parameters, or k plus
    one of ``fractions`` (r/b of a remainder case, 0 < r/b < 1), by k: its exact value there."""
    def value(atom):
        x = sympy.cancel(atom.args[0])
        for frac in (0, *fractions):
            k = sympy.cancel(x - frac)
            if _integer_poly(k, free):
                return k
        return atom

    return e.replace(lambda t: isinstance(t, sympy.floor), value)


def _label(flags: Mapping[sympy.Symbol, int]) -> str:
    return ", ".join(f"{k.name}={v}" for k, v in flags.items()) or "(no options)"


# --- the Keras side -----------------------------------------------------------------------------
@contextlib.contextmanager
def _allocation_free() -> Iterator[None]:
    """Build with no weight allocated at all: a global stateless scope, and task models not
    compiled (compiling creates an optimizer variable, which a stateless scope refuses; it adds no
    model weight)."""
    import reference_models  # noqa: F401  (imports TensorFlow with its start-up notices muted)

    import keras

    try:
        from keras_hub.src.models.task import Task
    except ImportError:  # pragma: no cover
        Task = None
    original = Task.__init__ if Task is not None else None

    def init(self, *args, compile=True, **kwargs):
        original(self, *args, compile=False, **kwargs)

    if Task is not None:
        Task.__init__ = init
    try:
        with keras.StatelessScope(initialize_variables=False):
            yield
    finally:
        if Task is not None:
            Task.__init__ = original


class _Oracle:
    """Keras − formula per component at a point, each point built once."""

    def __init__(self, case: Case):
        self.case = case
        self.cache: dict[tuple, dict[str, int]] = {}
        self.unclaimed_paths: set[str] = set()
        self.builds = 0
        self.counts: dict[tuple, int] = {}  # number of distinct Keras weights per point

    def weight_count(self, point: Mapping[sympy.Symbol, int]) -> int:
        self(point)
        return self.counts[tuple(int(point[x]) for x in self.case.free)]

    def __call__(self, point: Mapping[sympy.Symbol, int]) -> dict[str, int]:
        key = tuple(int(point[x]) for x in self.case.free)
        if key not in self.cache:
            self.cache[key] = self._measure(point)
        return self.cache[key]

    def _measure(self, point) -> dict[str, int]:
        import reference_models  # noqa: F401  (first: TensorFlow's start-up notices muted)

        import keras

        from paramcount.verify import build_reference, compare, keras_weights

        arch = self.case.arch
        hp = arch.resolve(self.case.hparams(point))
        self.builds += 1
        with _allocation_free():
            model = build_reference(arch, hp)
        weights = keras_weights(model)
        self.counts[tuple(int(point[x]) for x in self.case.free)] = len(weights)
        del model
        keras.backend.clear_session(free_memory=False)
        if self.builds % 40 == 0:
            gc.collect()
        res = compare(arch, hp, weights)
        if res.contested:
            path, owners = res.contested[0]
            raise _Contested(f"Keras weight {path} is claimed by several components: "
                             + ", ".join(owners))
        out = {c.path: c.difference for c in res.components}
        out[UNCLAIMED] = sum(w.size for w in res.unclaimed)
        self.unclaimed_paths |= {re.sub(r"\d+", "#", w.path) for w in res.unclaimed}
        return out


class _Contested(Exception):
    pass


# --- results ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Residual:
    """Keras − formula for one component, as a polynomial in the original symbols."""

    component: str
    expr: sympy.Expr | None  # None when no polynomial within the degree bounds fits
    weights: tuple[str, ...] = ()  # for the unclaimed pseudo-component: the weights' paths
    note: str = ""

    def text(self) -> str:
        if self.expr is None:
            return f"{self.component}: not a polynomial within the degree bounds ({self.note})"
        e = _pretty(self.expr)
        sign = "" if e.startswith("-") else "+"
        if self.component == UNCLAIMED:
            what = "Keras weights no formula component claims: " + ", ".join(self.weights)
        elif self.expr.could_extract_minus_sign():
            what = "the formula counts more than Keras builds"
        else:
            what = "Keras builds more than the formula counts"
        return f"{self.component}: {sign}{e} ({what})"

    def to_json(self) -> dict:
        return {"component": self.component,
                "residual": None if self.expr is None else str(self.expr),
                "weights": list(self.weights), "note": self.note}


@dataclass(frozen=True)
class CaseProof:
    """The outcome of one case: ``proven``, ``refuted`` or ``error``."""

    arch: str
    case: str
    status: str
    free: tuple[str, ...]
    parametrization: tuple[str, ...]
    bounds: Mapping[str, int]  # δ_x, the assumed degree bound per free parameter
    structural: Mapping[str, tuple[int, ...]]  # interpolation nodes per structural parameter
    ranges: Mapping[str, tuple[int, int]]  # [lo, hi) per random parameter
    points_per_node: int
    error_bound: float  # Schwartz–Zippel bound on a false "proven" (0: exact)
    builds: int
    seconds: float
    residuals: tuple[Residual, ...] = ()
    message: str = ""

    @property
    def method(self) -> str:
        parts = []
        if self.structural:
            parts.append("exact interpolation in " + ", ".join(
                f"{k} ∈ {{{', '.join(map(str, v))}}}" for k, v in self.structural.items()))
        if self.ranges:
            parts.append(f"Schwartz–Zippel at {self.points_per_node} random point"
                         f"{'s' if self.points_per_node != 1 else ''} per node in "
                         + ", ".join(self.ranges))
        return " × ".join(parts) or "one build (no free parameter)"

    def to_json(self) -> dict:
        return {
            "arch": self.arch, "case": self.case, "status": self.status, "method": self.method,
            "free": list(self.free), "parametrization": list(self.parametrization),
            "degree_bounds": dict(self.bounds),
            "interpolation_nodes": {k: list(v) for k, v in self.structural.items()},
            "random_ranges": {k: list(v) for k, v in self.ranges.items()},
            "points_per_node": self.points_per_node, "error_bound": self.error_bound,
            "builds": self.builds, "seconds": round(self.seconds, 3),
            "residuals": [r.to_json() for r in self.residuals], "message": self.message,
        }


@dataclass(frozen=True)
class ArchProof:
    arch: str
    cases: tuple[CaseProof, ...]

    @property
    def status(self) -> str:
        states = {c.status for c in self.cases}
        return "refuted" if "refuted" in states else "error" if "error" in states else "proven"

    @property
    def builds(self) -> int:
        return sum(c.builds for c in self.cases)

    @property
    def seconds(self) -> float:
        return sum(c.seconds for c in self.cases)

    @property
    def error_bound(self) -> float:
        return sum(c.error_bound for c in self.cases)

    def to_json(self) -> dict:
        return {"arch": self.arch, "status": self.status, "builds": self.builds,
                "seconds": round(self.seconds, 3), "error_bound": self.error_bound,
                "cases": [c.to_json() for c in self.cases]}


# --- proving ------------------------------------------------------------------------------------
def _ranges(case: Case, bits: int) -> dict[sympy.Symbol, tuple[int, int]]:
    """Random ranges [lo, hi) for the non-structural parameters: every hyperparameter value a
    product of them stays below 2^bits (weight dimensions stay within TensorFlow's int32)."""
    share: dict[sympy.Symbol, int] = {}
    for s, e in case.given.items():
        terms = sympy.Add.make_args(e)
        k = max((sympy.Poly(t, *case.free).total_degree() if t.free_symbols else 0)
                for t in terms)
        for x in e.free_symbols:
            share[x] = min(share.get(x, bits), max(2, bits // max(k, 1)))
    return {x: (2 ** (share.get(x, bits) - 1), 2 ** share.get(x, bits))
            for x in case.free if x not in case.structural}


def _nodes(case: Case) -> dict[sympy.Symbol, tuple[int, ...]]:
    return {x: tuple(range(1, case.bound(x) + 2))
            for x in sorted(case.structural, key=lambda s: s.name)}


def _rng(case: Case, salt: str) -> random.Random:
    return random.Random(f"{SEED}:{case.arch.id}:{case.label}:{salt}")


def prove_case(case: Case, *, explain_residuals: bool = True) -> CaseProof:
    """Decide formula ≡ Keras for one case (see the module docstring for the method)."""
    start = time.perf_counter()
    oracle = _Oracle(case)
    last_error = ""
    try:
        case = classify(case, oracle)
    except Exception as exc:
        last_error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"
        return _case_result(case, "error", oracle, start, {}, {}, 0, 1.0,
                            message=f"the Keras build of a tiny model failed: {last_error}")
    oracle.case = case
    nodes = _nodes(case)
    for bits in VALUE_BITS:
        ranges = _ranges(case, bits)
        per_point = sum(Fraction(case.bound(x), hi - lo) for x, (lo, hi) in ranges.items())
        if not ranges:
            points, bound = 1, 0.0
        elif per_point >= 1:
            points, bound = MAX_POINTS, 1.0
        else:
            points = max(MIN_POINTS, min(MAX_POINTS, math.ceil(
                math.log(TARGET_ERROR) / math.log(float(per_point)))))
            bound = float(per_point) ** points
        rng = _rng(case, f"prove:{bits}")
        witness = None
        try:
            for node in itertools.product(*nodes.values()):
                base = dict(zip(nodes, node))
                for _ in range(points):
                    for _ in range(100):  # keep sub-case inequalities (d_emb ≠ d_e)
                        point = {**base, **{x: rng.randrange(lo, hi) for x, (lo, hi) in
                                            ranges.items()}}
                        if case.admits(point):
                            break
                    diff = oracle(point)
                    if any(diff.values()):
                        witness = point
                        break
                if witness:
                    break
        except _Contested as exc:
            return _case_result(case, "refuted", oracle, start, nodes, ranges, points, bound,
                                message=str(exc))
        except Exception as exc:  # a build that fails at this size: retry smaller values
            last_error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"
            continue
        if witness is None:
            note = "" if bits == VALUE_BITS[0] else (
                f"values kept below 2^{bits}: builds failed with larger ones ({last_error})")
            return _case_result(case, "proven", oracle, start, nodes, ranges, points, bound,
                                message=note)
        residuals: tuple[Residual, ...] = ()
        diff = oracle(witness)
        msg = "at " + ", ".join(f"{k}={v}" for k, v in case.hparams(witness).items()) + ": " + \
            "; ".join(f"{k} {v:+,}" for k, v in diff.items() if v)
        if explain_residuals:
            try:
                residuals = _explain(case, oracle, ranges)
            except Exception as exc:
                msg += f"; residual not recovered ({type(exc).__name__}: {exc})"
        return _case_result(case, "refuted", oracle, start, nodes, ranges, points, bound,
                            residuals=residuals, message=msg)
    return _case_result(case, "error", oracle, start, nodes, {}, 0, 1.0,
                        message=f"the Keras build failed at every size tried: {last_error}")


def _case_result(case, status, oracle, start, nodes, ranges, points, bound, *, residuals=(),
                 message="") -> CaseProof:
    return CaseProof(
        arch=case.arch.id, case=case.label, status=status,
        free=tuple(x.name for x in case.free), parametrization=case.notes,
        bounds={x.name: case.bound(x) for x in case.free},
        structural={k.name: v for k, v in nodes.items()},
        ranges={k.name: v for k, v in sorted(ranges.items(), key=lambda kv: kv[0].name)},
        points_per_node=points, error_bound=bound if status == "proven" else 0.0,
        builds=oracle.builds, seconds=time.perf_counter() - start,
        residuals=tuple(residuals), message=message)


def prove(arch: Architecture | str) -> ArchProof:
    """Prove (or refute) one architecture, every option case; an outcome whose inputs have not
    changed since it was proven is read from the on-disk cache (paramcount.cache.cached_proof)."""
    from paramcount.cache import cached_proof

    return cached_proof(registry.get(arch) if isinstance(arch, str) else arch, _prove)


def _prove(arch: Architecture) -> ArchProof:
    out = []
    try:
        all_cases = cases(arch)
    except UnsupportedError as exc:
        return ArchProof(arch.id, (CaseProof(arch.id, "(all)", "error", (), (), {}, {}, {}, 0,
                                             1.0, 0, 0.0, message=str(exc)),))
    for case in all_cases:
        out.append(prove_case(case))
    return ArchProof(arch.id, tuple(out))


def prove_many(ids: Iterable[str] | None = None, *, progress=None) -> list[ArchProof]:
    ids = sorted(registry.architectures()) if ids is None else list(ids)
    out = []
    for aid in ids:
        if progress:
            progress(aid)
        out.append(prove(aid))
    return out


# --- residuals ----------------------------------------------------------------------------------
def _vandermonde_solve(xs: Sequence[int], ys: Sequence[Fraction]) -> list[Fraction]:
    """Monomial coefficients of the polynomial of degree < len(xs) through (xs, ys), exactly."""
    n = len(xs)
    coeffs = [Fraction(0)] * n
    for i, (xi, yi) in enumerate(zip(xs, ys)):
        if not yi:
            continue
        basis = [Fraction(1)]  # prod_{j≠i} (x − xj) / (xi − xj)
        denom = Fraction(1)
        for j, xj in enumerate(xs):
            if j == i:
                continue
            basis = [Fraction(0)] + basis
            for k in range(len(basis) - 1):
                basis[k] -= xj * basis[k + 1]
            denom *= xi - xj
        for k in range(n):
            coeffs[k] += yi * basis[k] / denom
    return coeffs


def _degree(coeffs: Sequence[Fraction]) -> int:
    d = -1
    for k, c in enumerate(coeffs):
        if c:
            d = k
    return d


def _eval1(coeffs: Sequence[Fraction], x: int) -> Fraction:
    return sum((c * x**k for k, c in enumerate(coeffs)), Fraction(0))


def _explain(case: Case, oracle: _Oracle, ranges, *, max_degree: int = 8) -> tuple[Residual, ...]:
    rng = _rng(case, "explain")

    def start_of(x):
        if x in case.structural:
            return 1
        lo, hi = ranges[x]
        return rng.randrange(lo, max(lo + 1, hi - 64))

    base = {x: start_of(x) for x in case.free}
    base.update({x: 2 for x in case.structural})
    comps = list(oracle(base))
    # 1. degree of the residual in each parameter, along a line through the base point
    seq: dict[sympy.Symbol, list[int]] = {}
    deg: dict[sympy.Symbol, int] = {}
    for x in case.free:
        first = 1 if x in case.structural else base[x]
        bound = case.bound(x)
        while True:
            xs = [first + i for i in range(bound + 2)]
            vals = {c: [] for c in comps}
            for xv in xs:
                d = oracle({**base, x: xv})
                for c in comps:
                    vals[c].append(Fraction(d.get(c, 0)))
            ok, dx = True, 0
            for c in comps:
                co = _vandermonde_solve(xs[:-1], vals[c][:-1])
                if _eval1(co, xs[-1]) != vals[c][-1]:
                    ok = False
                    break
                dx = max(dx, _degree(co))
            if ok or bound >= max_degree:
                break
            bound = min(max_degree, 2 * bound)
        if not ok:
            return (Residual(f"(all components, in {x.name})", None,
                             note=f"degree in {x.name} above {max_degree}"),)
        seq[x], deg[x] = xs, dx
    support = [x for x in case.free if deg[x] >= 1]
    # 2. tensor-product interpolation on the support's grid
    grids = [seq[x][: deg[x] + 1] for x in support]
    table: dict[str, dict[tuple[int, ...], Fraction]] = {c: {} for c in comps}
    for idx in itertools.product(*(range(len(g)) for g in grids)):
        d = oracle({**base, **{x: grids[i][j] for i, (x, j) in enumerate(zip(support, idx))}})
        for c in comps:
            table[c][idx] = Fraction(d.get(c, 0))
    polys: dict[str, sympy.Expr] = {}
    for c in comps:
        arr = dict(table[c])
        for axis, g in enumerate(grids):  # turn values into monomial coefficients, axis by axis
            new: dict[tuple[int, ...], Fraction] = {}
            others = {k[:axis] + k[axis + 1:] for k in arr}
            for o in others:
                ys = [arr[o[:axis] + (j,) + o[axis:]] for j in range(len(g))]
                for k, cf in enumerate(_vandermonde_solve(g, ys)):
                    new[o[:axis] + (k,) + o[axis:]] = cf
            arr = new
        expr = sympy.Add(*(sympy.Rational(cf.numerator, cf.denominator)
                           * sympy.Mul(*(x**k for x, k in zip(support, mono)))
                           for mono, cf in arr.items() if cf))
        polys[c] = sympy.expand(expr)
    # 3. check at fresh random points
    for _ in range(2):
        point = {x: (rng.randrange(1, case.bound(x) + 3) if x in case.structural
                     else rng.randrange(*ranges[x])) for x in case.free}
        d = oracle(point)
        vals = {k: sympy.Integer(v) for k, v in point.items()}
        for c in comps:
            if polys[c].xreplace(vals) != d.get(c, 0):
                polys[c] = None
    out = []
    for c in comps:
        p = polys[c]
        if p is None:
            out.append(Residual(_short(c), None, note="the interpolated residual failed the "
                                                      "check at a random point"))
        elif p != 0:
            weights = tuple(sorted(oracle.unclaimed_paths)) if c == UNCLAIMED else ()
            out.append(Residual(_short(c), case.to_original(p), weights))
    return tuple(out)


def _short(path: str) -> str:
    """A component path without the root's name (``blocks.norm_2``)."""
    return path if path == UNCLAIMED else (path.partition(".")[2] or path)


def explain(arch: Architecture | str, case: Case | None = None) -> tuple[Residual, ...]:
    """The exact residual Keras − formula per component, for one case (the first by default)."""
    arch = registry.get(arch) if isinstance(arch, str) else arch
    case = case or cases(arch)[0]
    oracle = _Oracle(case)
    case = classify(case, oracle)
    oracle.case = case
    return _explain(case, oracle, _ranges(case, VALUE_BITS[1]))


_EXPLAINED: dict[tuple[int, str], tuple[Architecture, tuple[Residual, ...]]] = {}


def explain_hparams(arch: Architecture | str, hparams: Mapping[str, int]) -> tuple[Residual, ...]:
    """The residuals of the case a hyperparameter set belongs to (used by ``verify``; one
    recovery per architecture and case in a process)."""
    arch = registry.get(arch) if isinstance(arch, str) else arch
    case = case_of(arch, hparams)
    key = (id(arch), case.label)
    if key not in _EXPLAINED:
        _EXPLAINED[key] = (arch, explain(arch, case))
    return _EXPLAINED[key][1]


# --- rendering ----------------------------------------------------------------------------------
def _fmt_bound(b: float) -> str:
    return "0 (exact)" if b == 0 else f"{b:.1e}"


def case_lines(c: CaseProof, *, timing: bool = True) -> list[str]:
    head = f"  [{c.case}] {c.status.upper()}"
    if timing:
        head += f" — {c.builds} Keras builds, {c.seconds:.1f} s"
    else:
        head += f" — {c.builds} Keras builds"
    lines = [head]
    if c.free:
        lines.append("    free parameters: " + ", ".join(c.free)
                     + (f"  ({'; '.join(c.parametrization)})" if c.parametrization else ""))
        lines.append("    degree bounds assumed (formula + margin): "
                     + ", ".join(f"{k} ≤ {v}" for k, v in c.bounds.items()))
        rng = ", ".join(f"{k} ∈ [{lo}, {hi})" for k, (lo, hi) in c.ranges.items())
        lines.append(f"    method: {c.method}" + (f"; {rng}" if rng else ""))
    if c.status == "proven":
        lines.append(f"    P(false proof) ≤ {_fmt_bound(c.error_bound)}, given the degree bounds")
    for r in c.residuals:
        lines.append(f"    residual {r.text()}")
    if c.message:
        lines.append(f"    {c.message}")
    return lines


def proof_text(p: ArchProof, *, timing: bool = True) -> str:
    n = len(p.cases)
    head = (f"{p.arch}: {p.status.upper()} ({n} case{'s' if n != 1 else ''}, "
            f"{p.builds} Keras builds" + (f", {p.seconds:.1f} s)" if timing else ")"))
    lines = [head]
    for c in p.cases:
        lines += case_lines(c, timing=timing)
    return "\n".join(lines)


def proof_json(p: ArchProof) -> dict:
    return p.to_json()


METHOD_TEXT = f"""\
Both sides are polynomials in the free hyperparameters once the constraints are written as
substitutions (`d_e = M·d_e'` for "d_e divisible by M", `M = M_kv·M'` for "M divisible by M_kv";
a term that is polynomial only piecewise, such as a projection present only when d_emb ≠ d_e,
splits the case in two). Equality is then decided as an identity of polynomials, component by
component (every formula leaf, plus the Keras weights no leaf claims), for every value of every
0/1 option flag. **Assumption:** Keras' count of each component is a polynomial whose degree in
each parameter is at most the formula's plus {MARGIN} (the bounds are listed per case). Layer
counts (`L`, `L_*`, and any multiplicity that adds Keras weights, measured on two tiny builds) take
the values 1..δ+1: exact interpolation nodes. At each node the other parameters are drawn at
random (each hyperparameter below 2^24; a product of parameters shares that budget) and every
residual must vanish at every draw: by the Schwartz–Zippel lemma a nonzero residual survives one
draw with probability at most Σ δ_x/|S_x|, and draws are added until the bound on a false proof is
below {TARGET_ERROR:g} per case. The randomness is seeded, so the outcome is reproducible. Models are
built without allocating any weight (a stateless scope; task models not compiled), so size costs
nothing. The Keras-build counts include the two-build probes of the multiplicities."""


# --- report -------------------------------------------------------------------------------------
_PROOF_CACHE: dict[str, ArchProof] = {}


def cached_prove(arch_id: str) -> ArchProof:
    """One proof per architecture and process (the report and tests share them)."""
    if arch_id not in _PROOF_CACHE or registry.get(arch_id) is not _PROOF_ARCH.get(arch_id):
        _PROOF_CACHE[arch_id] = prove(arch_id)
        _PROOF_ARCH[arch_id] = registry.get(arch_id)
    return _PROOF_CACHE[arch_id]


_PROOF_ARCH: dict[str, Architecture] = {}


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def proofs_section(results) -> str:
    """The report's "Proofs" section: every architecture among ``results``, every case.

    Deterministic (seeded points; no timings — ``paramcount prove`` prints those)."""
    ids = sorted({r.arch for r in results})
    proofs = [cached_prove(a) for a in ids]
    n_cases = sum(len(p.cases) for p in proofs)
    proven = sum(c.status == "proven" for p in proofs for c in p.cases)
    lines = ["## Proofs", "", METHOD_TEXT.replace("\n", " "), "",
             f"{sum(p.status == 'proven' for p in proofs)} of {len(proofs)} architectures proven "
             f"({proven} of {n_cases} option cases), {sum(p.builds for p in proofs):,} Keras "
             "builds. `paramcount prove ARCH` prints the same with wall-clock times.", "",
             "| architecture | case | outcome | free parameters | degree bounds (assumed) "
             "| method | Keras builds | P(false proof) ≤ |",
             "|---|---|---|---|---|---|---:|---:|"]
    details = []
    for p in proofs:
        for c in p.cases:
            free = ", ".join(c.free) + (f" ({'; '.join(c.parametrization)})"
                                        if c.parametrization else "")
            bounds = ", ".join(f"{k} ≤ {v}" for k, v in c.bounds.items())
            mark = {"proven": "✅ proven", "refuted": "❌ refuted", "error": "⚠️ error"}[c.status]
            bound = _fmt_bound(c.error_bound) if c.status == "proven" else ""
            lines.append(f"| {p.arch} | {_md(c.case)} | {mark} | {_md(free)} | {_md(bounds)} "
                         f"| {_md(c.method)} | {c.builds} | {bound} |")
            if c.status != "proven" or c.message:
                details.append(f"- **{p.arch} [{_md(c.case)}]**: {_md(c.message)}")
                details += [f"  - residual {_md(r.text())}" for r in c.residuals]
    if details:
        lines += ["", "Notes and residuals (Keras − formula):", "", *details]
    return "\n".join(lines)
