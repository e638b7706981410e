"""The hyperparameter vocabulary: every symbol a formula may use, declared once.

The names follow "Anatomy of Neural Language Models" (Saleh & Paquelet, 2024). Each symbol is a
SymPy ``Symbol`` with integer assumptions; a *flag* is an integer restricted to 0 or 1 (zeta, the
"projections carry biases" switch of the paper, is the first of them).

New symbols are declared with :func:`declare` from the module that needs them, each with its
description; :func:`get` and :func:`all_symbols` read the one table.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from paramcount.errors import UnknownSymbolError, did_you_mean

__all__ = ["SymbolInfo", "declare", "get", "info", "all_symbols"]


@dataclass(frozen=True)
class SymbolInfo:
    """One hyperparameter: its SymPy symbol, what it means, and whether it is a 0/1 flag."""

    symbol: sympy.Symbol
    description: str
    flag: bool = False
    # A count that may be zero: the layers of one kind in a heterogeneous stack (no dense
    # blocks at all is a valid model). Every other non-flag symbol is a positive integer.
    zero_ok: bool = False

    @property
    def name(self) -> str:
        return self.symbol.name


_TABLE: dict[str, SymbolInfo] = {}


def declare(name: str, description: str, *, flag: bool = False,
            zero_ok: bool = False) -> sympy.Symbol:
    """Declare a hyperparameter symbol (idempotent for identical declarations).

    ``zero_ok`` makes a non-flag symbol a non-negative count rather than a positive one.
    """
    if flag or zero_ok:
        sym = sympy.Symbol(name, integer=True, nonnegative=True)
    else:
        sym = sympy.Symbol(name, integer=True, positive=True)
    known = _TABLE.get(name)
    if known is not None:
        if known.flag != flag or known.zero_ok != zero_ok:
            raise ValueError(f"symbol {name!r} declared twice with different kinds")
        return known.symbol
    _TABLE[name] = SymbolInfo(sym, description, flag, zero_ok)
    return sym


def get(name: str) -> sympy.Symbol:
    return info(name).symbol


def info(name: str | sympy.Symbol) -> SymbolInfo:
    key = name.name if isinstance(name, sympy.Symbol) else name
    try:
        return _TABLE[key]
    except KeyError:
        raise UnknownSymbolError(did_you_mean(str(key), _TABLE, "symbol")) from None


def all_symbols() -> dict[str, SymbolInfo]:
    return dict(_TABLE)


# --- The paper's notation (DESIGN.md) ----------------------------------------------------------
v = declare("v", "vocabulary size")
n = declare("n", "maximum sequence length (learned positions); context length of an FFNN LM")
d_e = declare("d_e", "embedding / model width")
M = declare("M", "attention (query) heads")
M_kv = declare("M_kv", "key/value heads (grouped-query / multi-query attention)")
d_k = declare("d_k", "key (and query) width per head")
d_v = declare("d_v", "value width per head")
d_f = declare("d_f", "feed-forward inner width")
L = declare("L", "blocks (layers)")
L_enc = declare("L_enc", "encoder blocks")
L_dec = declare("L_dec", "decoder blocks")
d_h = declare("d_h", "hidden width of an RNN or FFNN LM")
E = declare("E", "experts in a mixture-of-experts layer")
zeta = declare("zeta", "1 when the attention projections carry biases, else 0", flag=True)
s = declare("s", "segment (token-type) vocabulary size")
