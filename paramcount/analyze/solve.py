"""Solve for a size: the valid value(s) of one hyperparameter that bring the total closest to a
parameter budget (``paramcount solve llama --target 7e9 --for d_e --set L=32 ...``).

Formula only: nothing here imports TensorFlow. The total is the formula's (``paramcount count``'s
total) with every other hyperparameter held at the given value; the unknown's valid values are the
ones the architecture accepts (:meth:`Architecture.resolve`: positive integers, 0/1 for a flag,
every declared constraint — divisibility, M_kv | M, relations — and integer fixed values such as
d_k = d_e/M). The real solutions of total(x) = N locate the answer; the nearest valid integers on
either side of each solution are the candidates, each evaluated exactly.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

import sympy

from paramcount.core import symbols
from paramcount.core.errors import HyperparameterError, ParamcountError
from paramcount.core.formula import to_int
from paramcount.core.hparams import Divisible
from paramcount.model import registry
from paramcount.model.registry import Architecture

__all__ = ["Candidate", "Solution", "parse_target", "solve"]

_SUFFIX = {"": 1, "k": 10**3, "m": 10**6, "b": 10**9, "g": 10**9, "t": 10**12}
_SCAN = 100_000  # valid-value checks at most per side of a solution
_FLOOR_WINDOW = 64  # valid values checked on each side of a relaxed root when the formula floors
_MAX_EXPONENT = 1000  # targets up to 10^1000 parameters


def parse_target(text: str | int | float) -> int:
    """A parameter budget: ``7e9``, ``7B``, ``6.7b``, ``350M``, ``1.5T``, ``7_000_000_000``."""
    if isinstance(text, bool):
        raise HyperparameterError(f"--target {text!r}: not a number of parameters")
    if isinstance(text, int):
        value = text
    else:
        raw = str(text).strip().replace("_", "").replace(",", "")
        m = re.fullmatch(r"([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([kKmMbBgGtT]?)", raw)
        if not m and re.fullmatch(r"-([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([kKmMbBgGtT]?)", raw):
            raise HyperparameterError(f"--target {text!r}: must be a positive number of parameters")
        if not m:
            raise HyperparameterError(
                f"--target {text!r}: expected a number such as 7e9, 7B, 350M or 7000000000")
        from decimal import Decimal, localcontext

        number = Decimal(m.group(1))
        if number.adjusted() > _MAX_EXPONENT:  # 1e999999999 would take the machine's memory
            raise HyperparameterError(f"--target {text!r}: more than 10^{_MAX_EXPONENT} "
                                      "parameters is not a model")
        with localcontext() as ctx:
            ctx.prec = _MAX_EXPONENT + 50  # exact: no rounding of the digits given
            exact = number * _SUFFIX[m.group(2).lower()]
        if exact != exact.to_integral_value():
            raise HyperparameterError(f"--target {text!r}: not a whole number of parameters")
        value = int(exact)
    if value < 1:
        raise HyperparameterError(f"--target {text!r}: must be a positive number of parameters")
    return value


@dataclass(frozen=True)
class Candidate:
    value: int
    hparams: Mapping[str, int]
    total: int
    target: int

    @property
    def difference(self) -> int:
        return self.total - self.target


@dataclass(frozen=True)
class Solution:
    arch: str
    symbol: str
    target: int
    given: Mapping[str, int]
    below: Candidate | None  # the valid value with the largest total ≤ target
    above: Candidate | None  # the valid value with the smallest total ≥ target
    total_expr: sympy.Expr  # the total as a function of the unknown (others substituted)
    step: str = ""  # what the valid values are (e.g. "multiples of 32")
    of: str = "total"  # the count solved for: "total", or "active" (per token)

    @property
    def best(self) -> Candidate:
        options = [c for c in (self.below, self.above) if c is not None]
        return min(options, key=lambda c: (abs(c.difference), c.total > self.target))


def _measure(arch: Architecture, of: str) -> sympy.Expr:
    """The count solved for: the formula's total, or (``of="active"``) the parameters one token
    uses, top-k of the experts."""
    return arch.formula.active_total() if of == "active" else arch.formula.total()


def _total_in(arch: Architecture, sym: sympy.Symbol, given: Mapping[str, int],
              of: str = "total") -> sympy.Expr:
    """The formula total (or active count) with every hyperparameter but ``sym`` replaced
    (defaults, fixed)."""
    values = {symbols.get(k): sympy.Integer(v) for k, v in given.items()}
    env: dict[sympy.Symbol, sympy.Expr] = dict(values)
    for s, e in arch.optional.items():
        if s not in env and s != sym:
            env[s] = e
    for s, e in arch.fixed.items():
        env[s] = e
    expr = _measure(arch, of)
    for _ in range(20):
        new = expr.xreplace(env)
        if new == expr:
            break
        expr = new
    return sympy.simplify(expr)


def _valid(arch: Architecture, given: Mapping[str, int], name: str, x: int) -> dict | None:
    try:
        return arch.resolve({**given, name: x})
    except ParamcountError:
        return None


def _shaping(arch: Architecture) -> tuple:
    """The constraints a solved shape meets: the architecture's, and what a forward pass needs
    (its notes: an even rotary width), so the solver offers models that run."""
    return (*arch.constraints, *(r.constraint for r in getattr(arch, "notes", ())))


def _step(arch: Architecture, sym: sympy.Symbol, given: Mapping[str, int]) -> int:
    """A step all valid values share, from the constraints whose dividend is ``sym`` times
    known values (x_in·d_e divisible by H_ssm: d_e a multiple of H_ssm / gcd(H_ssm, x_in))."""
    step = 1
    vals = {symbols.get(k): sympy.Integer(v) for k, v in given.items()}
    for c in _shaping(arch):
        if not isinstance(c, Divisible):
            continue
        factor = (sympy.sympify(c.dividend).xreplace(vals) / sym).cancel()
        b = sympy.sympify(c.divisor).xreplace(vals)
        if factor.is_Integer and int(factor) > 0 and b.is_Integer and int(b) > 0:
            step = math.lcm(step, int(b) // math.gcd(int(b), int(factor)))
    return step


def _divisor_candidates(arch, sym, given) -> set[int] | None:
    """Where ``sym`` divides a known value (M | d_e), its valid values are divisors of that."""
    vals = {symbols.get(k): sympy.Integer(v) for k, v in given.items()}
    out: set[int] | None = None
    for c in _shaping(arch):
        if isinstance(c, Divisible) and sympy.sympify(c.divisor) == sym:
            a = sympy.sympify(c.dividend).xreplace(vals)
            if a.is_Integer and int(a) > 0:
                divs = set(sympy.divisors(int(a)))
                out = divs if out is None else out & divs
    return out


def solve(arch: Architecture | str, target: int | str, unknown: str,
          given: Mapping[str, int] | None = None, of: str = "total") -> Solution:
    """The valid values of ``unknown`` whose totals are nearest ``target`` from below and above
    (``of="active"``: whose active-per-token counts are)."""
    arch = registry.get(arch) if isinstance(arch, str) else arch
    target = parse_target(target)
    if of == "active" and not arch.formula.has_active:
        raise HyperparameterError(f"{arch.id} has no experts: every parameter is active")
    sym = symbols.get(unknown)  # unknown symbol -> UnknownSymbolError
    if sym in arch.fixed:
        raise HyperparameterError(
            f"{unknown} is fixed to {arch.fixed[sym]} in {arch.id}; solve for one of "
            + ", ".join(s.name for s in arch.settable))
    if sym not in arch.settable:
        raise HyperparameterError(f"{unknown} is not a hyperparameter of {arch.id}; its "
                                  "hyperparameters: " + ", ".join(s.name for s in arch.settable))
    given = {k: v for k, v in (given or {}).items() if k != unknown}
    missing = [s.name for s in arch.required if s != sym and s.name not in given]
    if missing:
        raise HyperparameterError(f"solve {arch.id} for {unknown} needs the other required "
                                  f"hyperparameters: missing {', '.join(missing)} (--set or "
                                  "--preset)")
    for k in given:  # unknown names / not settable: the usual message
        if symbols.get(k) not in arch.settable and symbols.get(k) not in arch.fixed:
            arch.resolve(given)
    expr = _total_in(arch, sym, given, of)
    if sym not in expr.free_symbols:
        raise HyperparameterError(f"the total of {arch.id} does not depend on {unknown}")

    def candidate(x: int) -> Candidate | None:
        hp = _valid(arch, given, unknown, x)
        if hp is None:
            return None
        return Candidate(x, hp, to_int(_measure(arch, of), arch.values(hp), of), target)

    found: dict[int, Candidate] = {}
    step_text = ""
    if symbols.info(sym).flag:
        xs = [0, 1]
        step_text = "0 or 1"
    else:
        divisors = _divisor_candidates(arch, sym, given)
        if divisors is not None:
            xs = sorted(divisors)
            step_text = "divisors of " + ", ".join(
                f"{sympy.sympify(c.dividend)}" for c in _shaping(arch)
                if isinstance(c, Divisible) and sympy.sympify(c.divisor) == sym)
        else:
            step = _step(arch, sym, given)
            step_text = f"multiples of {step}" if step > 1 else "positive integers"
            xs = _near_roots(expr - target, sym, step, lambda x: candidate(x) is not None)
    for x in xs:
        c = candidate(x)
        if c is not None:
            found[x] = c
    if not found:
        raise HyperparameterError(f"no valid value of {unknown} for {arch.id} with the given "
                                  "hyperparameters")
    below = [c for c in found.values() if c.total <= target]
    above = [c for c in found.values() if c.total >= target]
    return Solution(
        arch.id, unknown, target, dict(given),
        max(below, key=lambda c: (c.total, -c.value)) if below else None,
        min(above, key=lambda c: (c.total, c.value)) if above else None,
        expr, step_text, of)


def _near_roots(f: sympy.Expr, x: sympy.Symbol, step: int, valid) -> list[int]:
    """Valid integers next to each positive real root of f (and the smallest valid value).

    Roots are located numerically, then pinned to the integer below them by exact integer
    bisection on f (no float decides the answer: at 1e150 parameters a double has lost 130
    digits). Where the numerical root finder fails (it does not converge for some huge targets),
    the sign change of f over the positive integers is found by exact doubling and bisection.
    """
    # A floored head width (KerasHub's d_e // M) is within 1 of d_e/M: the roots of the relaxed
    # polynomial are near the true crossing, and a window of valid values around them (below)
    # holds the nearest ones on each side, whose exact totals the caller compares.
    floored = f.has(sympy.floor)
    f = f.replace(lambda t: isinstance(t, sympy.floor), lambda t: t.args[0])
    num = sympy.numer(sympy.together(f))
    try:
        poly = sympy.Poly(num, x)
    except sympy.PolynomialError:
        poly = None

    def sign(k: int) -> int:
        v = poly.eval(k) if poly is not None else num.xreplace({x: sympy.Integer(k)})
        return (bool(v > 0)) - (bool(v < 0))

    roots: list[int] = []
    approx: list[float] = []
    if poly is not None:
        try:
            for r in poly.nroots(n=30, maxsteps=200):
                if abs(sympy.im(r)) < 1e-9 * max(1.0, abs(sympy.re(r))) and sympy.re(r) > 0:
                    approx.append(float(sympy.re(r)))
        except Exception:
            approx = []
        for r in approx:
            roots.append(_pin(sign, max(1, math.floor(r))))
        if not approx:
            root = _first_sign_change(sign)
            if root is not None:
                roots.append(root)
    out: set[int] = set()
    starts = [step * max(1, r // step) for r in roots] + [step]
    if floored:
        starts += [s + k * step for s in starts for k in range(-_FLOOR_WINDOW, _FLOOR_WINDOW + 1)]
        out |= {k for k in set(starts) if k >= 1 and valid(k)}
    for s in starts:
        for direction in (-1, 1):
            k = s if direction == -1 else s + step
            for _ in range(_SCAN):
                if k < 1:
                    break
                if valid(k):
                    out.add(k)
                    break
                k += direction * step
    return sorted(out)


_MAX_BITS = 4096  # unknowns beyond 2**4096 are not looked for


def _pin(sign, guess: int) -> int:
    """The integer k next to ``guess`` with a sign change of f between k and k+1 (exact)."""
    s0 = sign(guess)
    if s0 == 0:
        return guess
    width = max(2, guess >> 20)  # the float guess is good to ~1e-9 relative; widen till bracketed
    for _ in range(64):
        lo, hi = max(1, guess - width), guess + width
        if sign(lo) != sign(hi) or sign(lo) == 0 or sign(hi) == 0:
            return _bisect(sign, lo, hi)
        width *= 4
    return guess


def _bisect(sign, lo: int, hi: int) -> int:
    slo = sign(lo)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if sign(mid) == slo:
            lo = mid
        else:
            hi = mid
    return lo


def _first_sign_change(sign) -> int | None:
    lo, s = 1, sign(1)
    hi = 2
    while hi.bit_length() <= _MAX_BITS:
        if sign(hi) != s:
            return _bisect(sign, lo, hi)
        lo, hi = hi, hi * 2
    return None
