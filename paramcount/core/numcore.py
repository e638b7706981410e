"""The numeric core of ``count``, SymPy-free: the one place that reads an integer, checks a value's
domain, fills in defaults, decides whether a constraint holds, declares ``count``'s options and
forms the breakdown from integers.

Two evaluators of one formula tree call it: SymPy (:mod:`paramcount.core.hparams`,
:mod:`paramcount.output.render`, :mod:`paramcount.core.formula`) and the compiled count's table
(:mod:`paramcount.analyze.counting.compiled`). They differ only in how an expression becomes a number, which each
hands in as a function; everything a user could see differ by (which value is refused, in which
order, which default wins, which row reads what) is decided here once. Importing this module
imports neither SymPy nor the registry.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from paramcount.core.errors import HyperparameterError

__all__ = [
    "INTEGER_RULE",
    "FixedWidth",
    "add_count_arguments",
    "check_value",
    "config_options",
    "exact",
    "hp_options",
    "human",
    "nested",
    "node_counts",
    "parse_assignments",
    "parse_int_literal",
    "resolve",
    "set_name",
    "unmet",
    "whole",
]


class Domain(Protocol):
    """What a value's check reads of its symbol (:class:`paramcount.core.symbols.SymbolInfo`)."""

    @property
    def flag(self) -> bool: ...
    @property
    def zero_ok(self) -> bool: ...
    @property
    def description(self) -> str: ...


# --- reading integers -----------------------------------------------------------------------------
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


def parse_assignments(items: Iterable[str], known: Callable[[str], object]) -> dict[str, int]:
    """Parse ``SYM=VALUE`` strings (the CLI's ``--set``) into a name → int mapping; ``known(name)``
    raises for a name that is no symbol at all.

    A symbol given twice is an error, not "the last one wins": ``--set L=2 L=3`` is a typo."""
    out: dict[str, int] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name or not raw:
            shown = repr(item) if len(item) <= 60 else repr(item[:40]) + "..."
            raise HyperparameterError(f"--set expects SYM=VALUE, got {shown}")
        known(name)
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


def set_name(preset: str | None, assignments: bool) -> str | None:
    """What ``count`` calls a hyperparameter set: the preset's name, ``+custom`` after it where
    ``--set`` changed it, ``custom`` for ``--set`` alone."""
    if not assignments:
        return preset
    return f"{preset}+custom" if preset else "custom"


# --- values, defaults, constraints ----------------------------------------------------------------
def whole(x) -> bool:
    """Whether an exact number (an int or a Fraction) is a whole number."""
    return (isinstance(x, int) and not isinstance(x, bool)) or getattr(x, "denominator", None) == 1


def check_value(name: str, value, info: Domain) -> int:
    """A value's type and domain: positive integers; 0 or 1 for flags; 0 too where the symbol
    allows it. Floats are refused, even integral ones: a float has already lost digits above 2**53."""
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


_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda a, b: a == b, "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b}


def unmet(kind: str, lhs, rhs, op: str = "", when=1) -> bool:
    """Whether a constraint fails at exact numbers (ints or Fractions; None for a side not known
    yet, which is not checked). ``"div"``: ``lhs`` divisible by ``rhs``, checked where both are
    whole; ``"rel"``: ``lhs op rhs``, checked where ``when`` (1: always) is a whole nonzero number."""
    if kind == "div":
        return whole(lhs) and whole(rhs) and int(lhs) % int(rhs) != 0
    if not whole(when) or int(when) == 0 or lhs is None or rhs is None:
        return False
    return not _OPS[op](lhs, rhs)


def resolve(arch_id: str, given: Mapping[str, int], *, required: Sequence[str],
            optional: Sequence[str], fixed: Sequence[str], info: Callable[[str], Domain],
            default: Callable[[str, Mapping[str, int]], int | None],
            check: Callable[[Mapping[str, int]], None],
            fixed_text: Callable[[str, int], str]) -> dict[str, int]:
    """Check given values and fill in defaults: the complete, valid hyperparameter set, in the
    order required, optional, fixed. The evaluator hands in ``info(name)`` (raising for a name that
    is no symbol), ``default(name, values)`` (the default's value, None while a symbol it reads has
    none), ``check(values)`` (raising at the first constraint that fails) and ``fixed_text``
    (how a message shows a fixed symbol's value)."""
    settable = {*required, *optional}
    values: dict[str, int] = {}
    pinned: dict[str, int] = {}  # fixed symbols given anyway: must equal their value
    for name, value in given.items():
        domain = info(name)
        if name not in settable:
            if name in fixed:
                pinned[name] = check_value(name, value, domain)
                continue
            raise HyperparameterError(
                f"{name} is not a hyperparameter of {arch_id}; its hyperparameters: "
                + ", ".join(sorted(settable)))
        values[name] = check_value(name, value, domain)
    missing = [s for s in required if s not in values]
    if missing:
        described = "; ".join(f"{m} ({info(m).description})" for m in missing)
        raise HyperparameterError(f"missing hyperparameter(s) for {arch_id}: {described}")
    check(values)
    pending = list(dict.fromkeys([*(k for k in optional if k not in values), *fixed]))
    while pending:
        progressed = False
        for name in list(pending):
            val = default(name, values)
            if val is None:
                continue
            values[name] = val
            pending.remove(name)
            progressed = True
        if not progressed:
            raise ValueError(f"{arch_id}: defaults depend on each other: [{', '.join(pending)}]")
    check(values)
    for name, value in pinned.items():
        if values[name] != value:
            raise HyperparameterError(f"{name} cannot be set for {arch_id}: it is fixed to "
                                      f"{fixed_text(name, values[name])} there (got {value})")
    return {s: values[s] for s in (*required, *optional, *fixed)}


def human(n: int) -> str:
    """Short magnitude: 124.4M, 1.56B, 20.9K (for prose; tables carry exact integers). Here, below
    analysis (solve's answers) and rendering alike, which both word a count with it."""
    for div, unit in ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "K")):
        if abs(n) >= div:
            return f"{n / div:.3g}{unit}"
    return str(n)


# --- the breakdown, from integers -----------------------------------------------------------------
def node_counts(parents: Sequence[int], times: Sequence, own: Sequence) -> list[int]:
    """Each node's count with every multiplicity above it, for a tree in walk order: ``parents``
    holds each node's parent index (-1 at the root), ``times`` and ``own`` its multiplicity and
    per-instance count as exact numbers. The breakdown's rows (``count``'s lines) and its nested
    components (``--json``) are read off this one list."""
    mults: list = []
    out: list[int] = []
    for i, parent in enumerate(parents):
        mults.append((mults[parent] if parent >= 0 else 1) * times[i])
        n = mults[i] * own[i]
        if not whole(n):
            raise ValueError(f"node {i} of the tree evaluates to {n}, not an integer")
        out.append(int(n))
    return out


def nested(shape: Mapping[str, Any], counts: Sequence[int]) -> dict:
    """The nested component → count mapping (``count --json``'s ``components``): ``shape`` maps
    each name to a leaf's node index or a nested shape."""
    return {k: nested(s, counts) if isinstance(s, Mapping) else counts[s] for k, s in shape.items()}


# --- count's options ------------------------------------------------------------------------------
class FixedWidth(argparse.HelpFormatter):
    """argparse's help formatter at a set width, for a parser that never prints help (the
    compiled count's): the default width asks shutil for the terminal's, an import that costs a
    tenth of a compiled count."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=80)


def add_count_arguments(s: argparse.ArgumentParser, once: type[argparse.Action]) -> None:
    """``count``'s arguments: the full command line's ``count`` and the compiled count's parser
    declare them by this one function (``once``: the action refusing a repeated option)."""
    s.add_argument("arch", nargs="?", help="architecture (optional with --config)")
    hp_options(s, once)
    config_options(s, once, ("keras", "transformers"), None,
                   "counted, with its deltas from Keras (default: transformers for a "
                   "transformers --config, else keras; formula only, torch never imported)")
    s.add_argument("--context", metavar="T", type=positive_int, action=once,
                   help="memory and compute too: the KV cache after T tokens, the forward FLOPs "
                        "of T tokens and the weights' bytes, by component")
    s.add_argument("--batch", metavar="B", type=positive_int, action=once,
                   help="sequences run together (with --context; default 1)")
    s.add_argument("--dtype", metavar="D", action=once,
                   help="what the weights are held in (with --context; default bf16): fp32, "
                        "fp16, bf16, fp8, int8, int4 (GPTQ/AWQ groups of 128) or nf4")


def positive_int(text: str) -> int:
    """An option's value that sizes something (``--context T``): a whole number, 1 or more,
    read as every integer of the command line is (:func:`parse_int_literal`)."""
    value = parse_int_literal(text)
    if value is None or value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def hp_options(s: argparse.ArgumentParser, once: type[argparse.Action]) -> None:
    s.add_argument("--preset", metavar="NAME", action=once, help="a published preset or example set")
    s.add_argument("--set", metavar="SYM=VALUE", nargs="+", action="extend",
                   help="hyperparameter values (on top of --preset, if given), each symbol "
                        f"once; {INTEGER_RULE}")
    s.add_argument("--json", action="store_true", help="machine-readable output")


def config_options(s: argparse.ArgumentParser, once: type[argparse.Action], frameworks, default,
                   default_help: str) -> None:
    s.add_argument("--config", metavar="PATH", action=once,
                   help="a transformers config.json (or its folder) or a KerasHub preset "
                        "config.json, in place of --preset; picks the architecture")
    s.add_argument("--framework", choices=frameworks, default=default,
                   help=f"the framework whose build is {default_help}")
    s.add_argument("--checkpoint", metavar="PATH",
                   help="a checkpoint's header against the formula: a .safetensors file, a "
                        "folder of shards, a .gguf file or a KerasHub preset folder (the "
                        "config beside it picks the architecture; only headers are read)")


def exact(x):
    """An exact number as the core reads it: ints stay ints, anything with a numerator and a
    denominator (a SymPy Rational, a Fraction) becomes a Fraction; anything else (a symbol still
    free) None."""
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    if getattr(x, "is_Rational", False):  # SymPy's
        p, q = int(x.p), int(x.q)
    elif isinstance(getattr(x, "numerator", None), int) and isinstance(getattr(x, "denominator", None), int):
        p, q = x.numerator, x.denominator  # a Fraction (not imported here: a count rarely needs one)
    else:
        return None
    if q == 1:
        return p
    from fractions import Fraction

    return Fraction(p, q)
