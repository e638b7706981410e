"""Exact expressions as plain data (JSON): what the on-disk cache stores in place of code.

A count's expressions (:mod:`paramcount.analyze.counting.compiled`) and a proof's residuals
(:mod:`paramcount.analyze.prove.stored`) are written as nested lists of integers and names that a fixed
evaluator reads; nothing in a cache entry is ever run. The shapes:

- an integer (any size: JSON integers are exact in Python) or a symbol's name;
- ``["+", a, b, ...]``, ``["*", a, b, ...]``, ``["^", a, k]`` (``k`` a positive integer);
- ``["/", a, b]``: a / b exactly (an int when whole, a Fraction otherwise);
- ``["floor", a]`` and ``["delta", a, b]`` (1 if a = b else 0: SymPy's KroneckerDelta);
- ``["min", a, b, ...]``: the least of its arguments, exactly (a sliding window's
  ``min(T, w − 1)`` in a cost tree, :mod:`paramcount.model.cost`).

:func:`encode` and :func:`decode` need SymPy; :func:`value` does not (the fast ``count``).
Anything of another shape raises (``ValueError`` from :func:`value` and :func:`decode`), which a
reader of the cache takes as a damaged entry: a miss.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

__all__ = ["decode", "encode", "names", "value"]


def encode(expr) -> object:
    """A SymPy expression as data (NotImplementedError for a function it has no shape for)."""
    import sympy

    if expr.is_Integer:
        return int(expr)
    if expr.is_Rational:
        return ["/", int(expr.p), int(expr.q)]
    if expr.is_Symbol:
        return expr.name
    if expr.is_Add:
        return ["+", *(encode(a) for a in expr.args)]
    if expr.is_Mul:
        num: list[object] = []
        den: list[object] = []
        for f in expr.args:
            if f.is_Rational and not f.is_Integer:
                num.append(int(f.p))
                den.append(int(f.q))
            elif f.is_Pow and f.exp.is_Integer and f.exp < 0:
                den.append(encode(f.base ** (-f.exp)))
            else:
                num.append(encode(f))
        top = num[0] if len(num) == 1 else ["*", *num] if num else 1
        if not den:
            return top
        return ["/", top, ["*", *den] if len(den) > 1 else den[0]]
    if expr.is_Pow and expr.exp.is_Integer:
        if expr.exp > 0:
            return ["^", encode(expr.base), int(expr.exp)]
        return ["/", 1, ["^", encode(expr.base), int(-expr.exp)]]
    if isinstance(expr, sympy.floor):
        return ["floor", encode(expr.args[0])]
    if isinstance(expr, sympy.KroneckerDelta):
        return ["delta", encode(expr.args[0]), encode(expr.args[1])]
    if isinstance(expr, sympy.Min):
        return ["min", *(encode(a) for a in expr.args)]
    raise NotImplementedError(f"cannot store {type(expr).__name__}: {expr}")


def _div(a, b):
    if isinstance(a, int) and isinstance(b, int) and b and a % b == 0:
        return a // b
    from fractions import Fraction

    return Fraction(a) / Fraction(b)


def value(data, values: Mapping[str, int]):
    """The exact value of ``data`` at ``values`` (an int, or a Fraction where not whole)."""
    if isinstance(data, int) and not isinstance(data, bool):
        return data
    if isinstance(data, str):
        return values[data]
    if not isinstance(data, list) or not data:
        raise ValueError(f"not an expression: {data!r}")
    op, *args = data
    if op == "+":
        return sum((value(a, values) for a in args), 0)
    if op == "*":
        out = 1
        for a in args:
            out *= value(a, values)
        return out
    if op == "/" and len(args) == 2:
        return _div(value(args[0], values), value(args[1], values))
    if op == "^" and len(args) == 2 and type(args[1]) is int and 0 < args[1] <= 64:
        return value(args[0], values) ** args[1]
    if op == "floor" and len(args) == 1:
        x = value(args[0], values)
        return x if isinstance(x, int) else math.floor(x)
    if op == "delta" and len(args) == 2:
        return 1 if value(args[0], values) == value(args[1], values) else 0
    if op == "min" and args:
        return min(value(a, values) for a in args)  # ints and Fractions compare exactly
    raise ValueError(f"not an expression: {data!r}")


def names(data) -> set[str]:
    """The symbols' names ``data`` reads."""
    if isinstance(data, str):
        return {data}
    if isinstance(data, list):
        return set().union(*(names(a) for a in data[1:]))
    return set()


def decode(data):
    """``data`` as a SymPy expression over paramcount's declared symbols (``ValueError`` for
    anything else, an unknown symbol's name included)."""
    import sympy

    from paramcount.core import symbols
    from paramcount.core.errors import ParamcountError

    if isinstance(data, int) and not isinstance(data, bool):
        return sympy.Integer(data)
    if isinstance(data, str):
        try:
            return symbols.get(data)
        except ParamcountError as exc:
            raise ValueError(str(exc)) from None
    if not isinstance(data, list) or not data:
        raise ValueError(f"not an expression: {data!r}")
    op, *args = data
    parts = [decode(a) for a in args] if op != "^" else [decode(args[0]), *args[1:]]
    if op == "+":
        return sympy.Add(*parts)
    if op == "*":
        return sympy.Mul(*parts)
    if op == "/" and len(parts) == 2:
        return parts[0] / parts[1]
    if op == "^" and len(parts) == 2 and type(parts[1]) is int and 0 < parts[1] <= 64:
        return parts[0] ** parts[1]
    if op == "floor" and len(parts) == 1:
        return sympy.floor(parts[0])
    if op == "delta" and len(parts) == 2:
        return sympy.KroneckerDelta(*parts)
    if op == "min" and parts:
        return sympy.Min(*parts)
    raise ValueError(f"not an expression: {data!r}")
