"""Hyperparameter values: parsing, domains, defaults and constraints, checked in one place."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import sympy

from paramcount.core import numcore, symbols
from paramcount.core.errors import ConstraintError
from paramcount.core.formula import pretty
from paramcount.core.numcore import INTEGER_RULE, exact, parse_int_literal

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
    :mod:`paramcount.core.exact`, built once per expression), else SymPy's partial substitution."""
    expr = sympy.sympify(expr)
    if expr not in _EXACT:
        from paramcount.core.exact import function

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
        prover's parameter space, ``paramcount.analyze.prove.parametrize.Space``), so that every point
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
        if numcore.unmet("div", exact(a), exact(b)):
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
        w = 1 if self.when is None else exact(_val(self.when, values))
        if not numcore.whole(w) or w == 0:
            return None  # not enforced here (nor are the sides evaluated)
        a, b = _val(self.lhs, values), _val(self.rhs, values)
        if numcore.unmet("rel", exact(a), exact(b), self.op):
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


def parse_assignments(items: Iterable[str]) -> dict[str, int]:
    """Parse ``SYM=VALUE`` strings (the CLI's ``--set``) into a name → int mapping
    (:func:`paramcount.core.numcore.parse_assignments`; an unknown symbol: UnknownSymbolError)."""
    return numcore.parse_assignments(items, symbols.info)


def check_value(name: str, value) -> int:
    """A value's type and domain (:func:`paramcount.core.numcore.check_value`)."""
    return numcore.check_value(name, value, symbols.info(name))


def resolve(
    arch_id: str,
    given: Mapping[str, int],
    *,
    required: tuple[sympy.Symbol, ...],
    optional: Mapping[sympy.Symbol, sympy.Expr],
    fixed: Mapping[sympy.Symbol, sympy.Expr],
    constraints: tuple[Constraint, ...],
) -> dict[str, int]:
    """Check given values and fill in defaults: the complete, valid hyperparameter set
    (:func:`paramcount.core.numcore.resolve`, with SymPy evaluating the defaults and constraints)."""
    by_name = {s.name: s for s in (*required, *optional, *fixed)}
    exprs = {s.name: e for s, e in (*optional.items(), *fixed.items())}

    def at(values: Mapping[str, int]) -> dict[sympy.Symbol, int]:
        return {by_name[k]: v for k, v in values.items()}

    def default(name: str, values: Mapping[str, int]) -> int | None:
        expr = exprs[name]
        val = _val(expr, at(values))
        if val.free_symbols:
            return None
        if not val.is_Integer:
            raise ConstraintError(f"{name} = {_fmt(expr)} = {val} is not an integer for {arch_id}")
        return int(val)

    def fixed_text(name: str, value: int) -> str:
        expr = sympy.sympify(exprs[name])
        return f"{value}" if expr.is_Number else f"{_fmt(expr)} = {value}"

    return numcore.resolve(
        arch_id, given, required=[s.name for s in required], optional=[s.name for s in optional],
        fixed=[s.name for s in fixed], info=symbols.info, default=default,
        check=lambda values: _check(constraints, at(values)), fixed_text=fixed_text)


def _check(constraints: tuple[Constraint, ...], values: Mapping[sympy.Symbol, int]) -> None:
    for c in constraints:
        msg = c.check(values)
        if msg:
            raise ConstraintError(msg)
