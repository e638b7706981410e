"""Exact integer arithmetic for SymPy expressions, as plain Python: ints, and Fractions where a
quotient is not whole. One code generator for the compiled count (:mod:`paramcount.analyze.counting.compiled`)
and for evaluating formula terms (:func:`paramcount.core.formula.to_int`). Imports no SymPy at module
level: the compiled count's fast path imports this module for :func:`q` and :func:`floor`."""

from __future__ import annotations

import math
from collections.abc import Callable

__all__ = ["code", "floor", "function", "q"]


def q(a, b):
    """a / b, exactly: an int when whole, a Fraction otherwise."""
    if isinstance(a, int) and isinstance(b, int) and b and a % b == 0:
        return a // b
    from fractions import Fraction

    return Fraction(a) / Fraction(b)


def floor(x):
    return x if isinstance(x, int) else math.floor(x)


def code(expr, sym: str = "_s_{}") -> str:
    """Python source evaluating a SymPy expression exactly; a symbol ``x`` reads as ``sym``
    formatted with its name (an int local ``_s_x``, or ``V['x']``). NotImplementedError for an
    expression it cannot write (anything but integers, rationals, symbols, +, ×, integer powers,
    floor and KroneckerDelta)."""
    import sympy

    def c(e) -> str:
        return code(e, sym)

    if expr.is_Integer:
        return repr(int(expr))
    if expr.is_Rational:
        return f"_q({int(expr.p)}, {int(expr.q)})"
    if expr.is_Symbol:
        return sym.format(repr(expr.name) if "[" in sym else expr.name)
    if expr.is_Add:
        return "(" + " + ".join(c(a) for a in expr.args) + ")"
    if expr.is_Mul:
        num, den = [], []
        for f in expr.args:
            if f.is_Rational and not f.is_Integer:
                num.append(repr(int(f.p)))
                den.append(repr(int(f.q)))
            elif f.is_Pow and f.exp.is_Integer and f.exp < 0:
                den.append(c(f.base ** (-f.exp)))
            else:
                num.append(c(f))
        top = "(" + " * ".join(num or ["1"]) + ")"
        return f"_q({top}, ({' * '.join(den)}))" if den else top
    if expr.is_Pow and expr.exp.is_Integer:
        if expr.exp > 0:
            return f"({c(expr.base)} ** {int(expr.exp)})"
        return f"_q(1, ({c(expr.base)} ** {int(-expr.exp)}))"
    if isinstance(expr, sympy.floor):
        return f"_floor({c(expr.args[0])})"
    if isinstance(expr, sympy.KroneckerDelta):
        return f"(1 if {c(expr.args[0])} == {c(expr.args[1])} else 0)"
    raise NotImplementedError(f"cannot compile {type(expr).__name__}: {expr}")


def function(expr) -> Callable | None:
    """``lambda V: <expr>`` over a mapping of symbol names to values, or None where
    :func:`code` cannot write the expression."""
    try:
        src = "lambda V: " + code(expr, "V[{}]")
    except (NotImplementedError, RecursionError):
        return None
    return eval(compile(src, "<paramcount.core.exact>", "eval"), {"_q": q, "_floor": floor})
