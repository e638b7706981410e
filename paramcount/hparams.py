"""Hyperparameter values: parsing, domains, defaults and constraints, checked in one place."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import sympy

from paramcount import symbols
from paramcount.errors import ConstraintError, HyperparameterError
from paramcount.formula import pretty

__all__ = [
    "INTEGER_RULE",
    "Constraint",
    "Divisible",
    "Relation",
    "check_value",
    "parse_assignments",
    "parse_int_literal",
    "resolve",
]


_fmt = pretty  # constraints print as every other expression does


_EXACT: dict = {}


def _val(expr, values: Mapping[sympy.Symbol, int]) -> sympy.Expr:
    """``expr`` at ``values``: a number when every symbol has a value (by generated exact Python,
    :mod:`paramcount.exact`, built once per expression), else SymPy's partial substitution."""
    expr = sympy.sympify(expr)
    if expr not in _EXACT:
        from paramcount.exact import function

        _EXACT[expr] = function(expr) if len(_EXACT) < 100_000 else None
    fn = _EXACT[expr]
    if fn is not None:
        try:
            out = fn({s.name: v for s, v in values.items()})
        except (KeyError, ArithmeticError, TypeError, ValueError, AttributeError):
            out = None
        if isinstance(out, int):
            return sympy.Integer(out)
        if out is not None and hasattr(out, "numerator") and hasattr(out, "denominator"):
            return sympy.Rational(out.numerator, out.denominator)
    return _sympy_val(expr, values)


def _sympy_val(expr, values: Mapping[sympy.Symbol, int]) -> sympy.Expr:
    return sympy.sympify(expr).xreplace({k: sympy.Integer(v) for k, v in values.items()})


class Constraint:
    """A condition on hyperparameter values; ``check`` returns an error message or None."""

    def symbols(self) -> set[sympy.Symbol]:
        raise NotImplementedError

    def check(self, values: Mapping[sympy.Symbol, int]) -> str | None:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def substitute(self, space) -> None:
        """Write this constraint as a substitution over fresh parameters in ``space`` (the
        prover's parameter space, ``paramcount.prove.parametrize.Space``), so that every point
        of the space meets it. A constraint the prover cannot write so says it cannot."""
        space.cannot(self)


@dataclass(frozen=True)
class Divisible(Constraint):
    """``dividend`` is a multiple of ``divisor`` (d_e divisible by M; M by M_kv)."""

    dividend: sympy.Expr
    divisor: sympy.Expr

    def symbols(self) -> set[sympy.Symbol]:
        return set(sympy.sympify(self.dividend).free_symbols | sympy.sympify(self.divisor).free_symbols)

    def check(self, values):
        a, b = _val(self.dividend, values), _val(self.divisor, values)
        if not (a.is_Integer and b.is_Integer):
            return None
        if int(a) % int(b):
            return (f"{_fmt(self.dividend)} ({a}) must be divisible by {_fmt(self.divisor)} ({b}); "
                    f"{_allowed(self.dividend, self.divisor, int(a), int(b), values)}")
        return None

    def describe(self) -> str:
        return f"{_fmt(self.dividend)} divisible by {_fmt(self.divisor)}"

    def substitute(self, space) -> None:
        # d_e divisible by M: d_e = M·d_e'
        space.multiple(self.dividend, self.divisor, self)


def _allowed(dividend, divisor, a: int, b: int, values) -> str:
    """What to change, said of the symbol a user most likely just set: a lone symbol as the
    divisor takes the divisors of the dividend (M_kv of M = 32: 1, 2, 4, 8, 16, 32); a lone
    symbol as the dividend takes the multiples of the divisor."""
    divisor, dividend = sympy.sympify(divisor), sympy.sympify(dividend)
    options = []
    if divisor.is_Symbol and a > 0:
        divs = sympy.divisors(a)
        shown = ", ".join(map(str, divs)) if len(divs) <= 16 else f"{len(divs)} values"
        options.append(f"{divisor} one of the divisors of {a}: {shown}")
    if dividend.is_Symbol:
        options.append(f"{dividend} a multiple of {b}")
    return "allowed: " + ("; or ".join(options) if options else f"values where {b} divides {a}")


_OPS = {"==": lambda a, b: a == b, "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b}


@dataclass(frozen=True)
class Relation(Constraint):
    """``lhs op rhs`` (op one of ==, <=, >=), enforced only where ``when`` (a flag) is nonzero."""

    lhs: sympy.Expr
    op: str
    rhs: sympy.Expr
    when: sympy.Expr | None = None
    reason: str = ""

    def symbols(self) -> set[sympy.Symbol]:
        out = sympy.sympify(self.lhs).free_symbols | sympy.sympify(self.rhs).free_symbols
        if self.when is not None:
            out |= sympy.sympify(self.when).free_symbols
        return set(out)

    def check(self, values):
        if self.when is not None:
            w = _val(self.when, values)
            if not w.is_Integer:
                return None
            if int(w) == 0:
                return None
        a, b = _val(self.lhs, values), _val(self.rhs, values)
        if not (a.is_Number and b.is_Number):
            return None
        if not _OPS[self.op](a, b):
            why = f" ({self.reason})" if self.reason else ""
            cond = f" when {_fmt(self.when)} = 1" if self.when is not None else ""
            return f"{_fmt(self.lhs)} ({a}) must be {self.op} {_fmt(self.rhs)} ({b}){cond}{why}"
        return None

    def describe(self) -> str:
        cond = f" when {_fmt(self.when)} = 1" if self.when is not None else ""
        return f"{_fmt(self.lhs)} {self.op} {_fmt(self.rhs)}{cond}"

    def substitute(self, space) -> None:
        if self.when is not None and not space.holds(self.when, self):
            return
        if self.op == "==":  # one side eliminated: d_e = 2·d_h where tied
            space.equal(self.lhs, self.rhs, self)
        else:  # the larger side is the smaller plus a fresh positive parameter
            small, big = (self.lhs, self.rhs) if self.op == "<=" else (self.rhs, self.lhs)
            space.at_most(small, big, self)


INTEGER_RULE = ("an integer is written in ASCII decimal digits, optionally signed, with '_' "
                "allowed between digits (1_000_000): no spaces, no decimal point, no exponent")
_INT_RE = re.compile(r"[+-]?[0-9]+(?:_[0-9]+)*")


def parse_int_literal(text: str) -> int | None:
    """The value of an integer literal under :data:`INTEGER_RULE`, or None. Never through float:
    ``9007199254740993`` stays itself, and ``4096.0``, ``1e3``, ``٣`` and `` 3`` are refused."""
    if not _INT_RE.fullmatch(text):
        return None
    try:
        return int(text.replace("_", ""))
    except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
        return None


def parse_assignments(items: Iterable[str]) -> dict[str, int]:
    """Parse ``SYM=VALUE`` strings (the CLI's ``--set``) into a name → int mapping.

    A symbol given twice is an error, not "the last one wins": ``--set L=2 L=3`` is a typo."""
    out: dict[str, int] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name or not raw:
            shown = repr(item) if len(item) <= 60 else repr(item[:40]) + "..."
            raise HyperparameterError(f"--set expects SYM=VALUE, got {shown}")
        symbols.info(name)  # unknown symbol -> UnknownSymbolError
        value = _parse_int(name, raw)
        if name in out:
            raise HyperparameterError(f"--set gives {name} twice ({name}={out[name]} and "
                                      f"{name}={raw}); give each hyperparameter once")
        out[name] = value
    return out


def _parse_int(name: str, raw: str) -> int:
    value = parse_int_literal(raw)
    if value is None:
        shown = repr(raw) if len(raw) <= 40 else repr(raw[:30]) + f"... ({len(raw)} characters)"
        if _INT_RE.fullmatch(raw):
            raise HyperparameterError(f"{name}={shown}: more digits than Python reads as an "
                                      "integer (sys.get_int_max_str_digits)")
        raise HyperparameterError(f"{name}={shown}: not an integer ({INTEGER_RULE})")
    return value


def check_value(name: str, value) -> int:
    """A value's type and domain: positive integers; 0 or 1 for flags. Floats are refused, even
    integral ones: a float has already lost digits above 2**53."""
    info = symbols.info(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise HyperparameterError(f"{name}={value!r}: not an integer")
    if info.flag:
        if value not in (0, 1):
            raise HyperparameterError(f"{name}={value}: a flag is 0 or 1 ({info.description})")
    elif info.zero_ok:
        if value < 0:
            raise HyperparameterError(
                f"{name}={value}: must be a non-negative integer ({info.description})")
    elif value < 1:
        raise HyperparameterError(f"{name}={value}: must be a positive integer ({info.description})")
    return value


def resolve(
    arch_id: str,
    given: Mapping[str, int],
    *,
    required: tuple[sympy.Symbol, ...],
    optional: Mapping[sympy.Symbol, sympy.Expr],
    fixed: Mapping[sympy.Symbol, sympy.Expr],
    constraints: tuple[Constraint, ...],
) -> dict[str, int]:
    """Check given values and fill in defaults: the complete, valid hyperparameter set."""
    settable = {s.name for s in required} | {s.name for s in optional}
    values: dict[sympy.Symbol, int] = {}
    pinned: dict[sympy.Symbol, int] = {}  # fixed symbols given anyway: must equal their value
    for name, value in given.items():
        sym = symbols.info(name).symbol
        if name not in settable:
            if sym in fixed:
                pinned[sym] = check_value(name, value)
                continue
            raise HyperparameterError(
                f"{name} is not a hyperparameter of {arch_id}; its hyperparameters: "
                + ", ".join(sorted(settable)))
        values[sym] = check_value(name, value)
    missing = [s.name for s in required if s not in values]
    if missing:
        described = "; ".join(f"{m} ({symbols.info(m).description})" for m in missing)
        raise HyperparameterError(f"missing hyperparameter(s) for {arch_id}: {described}")
    _check(constraints, values)
    pending = {**{k: v for k, v in optional.items() if k not in values}, **fixed}
    while pending:
        progressed = False
        for sym, expr in list(pending.items()):
            val = _val(expr, values)
            if val.free_symbols:
                continue
            if not val.is_Integer:
                raise ConstraintError(
                    f"{sym.name} = {_fmt(expr)} = {val} is not an integer for {arch_id}")
            values[sym] = int(val)
            del pending[sym]
            progressed = True
        if not progressed:
            raise ValueError(f"{arch_id}: defaults depend on each other: {list(pending)}")
    _check(constraints, values)
    for sym, value in pinned.items():
        if values[sym] != value:
            expr = fixed[sym]
            how = f"{values[sym]}" if expr.is_Number else f"{_fmt(expr)} = {values[sym]}"
            raise HyperparameterError(
                f"{sym.name} cannot be set for {arch_id}: it is fixed to {how} there (got {value})")
    order = [*required, *optional, *fixed]
    return {s.name: values[s] for s in order}


def _check(constraints: tuple[Constraint, ...], values: Mapping[sympy.Symbol, int]) -> None:
    for c in constraints:
        msg = c.check(values)
        if msg:
            raise ConstraintError(msg)
