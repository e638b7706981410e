"""The exceptions paramcount raises for bad input.

Every one of them is a :class:`ParamcountError`; the CLI turns each into one line on stderr and
exit status 2. Each is also a ``ValueError`` (or ``KeyError``-free lookup) so library callers can
catch them the usual way.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "ConstraintError",
    "HyperparameterError",
    "InputFileError",
    "OutputPathError",
    "ParamcountError",
    "Refused",
    "UnknownArchitectureError",
    "UnknownPresetError",
    "UnknownSymbolError",
    "did_you_mean",
]


class ParamcountError(ValueError):
    """Base class: a problem with what the user asked for, stated in one line."""


class UnknownArchitectureError(ParamcountError):
    pass


class UnknownPresetError(ParamcountError):
    pass


class UnknownSymbolError(ParamcountError):
    pass


class HyperparameterError(ParamcountError):
    """A value that is missing, not an integer, out of its domain, or not settable."""


class ConstraintError(ParamcountError):
    """Values that are each valid but violate one of the architecture's constraints."""


class InputFileError(ParamcountError):
    """A data file (presets, hyperparameters) that cannot be read or is malformed."""


class OutputPathError(ParamcountError):
    """An output path that cannot be written: checked before any work (``paramcount.runtime.files``)."""


class Refused(ParamcountError):
    """transformers' config validation rejects a hyperparameter set that Keras builds (raised in
    a torch worker, caught here: defined where no torch is needed)."""

    @classmethod
    def here(cls, arch_id: str, why: str) -> Refused:
        """transformers cannot build ``arch_id`` at this set, and ``why``."""
        return cls(f"transformers cannot build {arch_id} here: {why}")


def did_you_mean(name: str, known: Iterable[str], what: str) -> str:
    """``unknown WHAT 'name'; did you mean 'x'?`` for a near miss, else a short list of the known
    names (the full list of fifty architectures is no help to someone who mistyped one)."""
    import difflib

    known = sorted(set(known))
    shown = repr(name) if len(name) <= 60 else repr(name[:40]) + f"... ({len(name)} characters)"
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6) if len(name) <= 200 else []
    if close:
        return f"unknown {what} {shown}; did you mean " + " or ".join(repr(c) for c in close) + "?"
    if len(known) <= 12:
        return f"unknown {what} {shown}; known: {', '.join(known) or 'none'}"
    return f"unknown {what} {shown}; known: {', '.join(known[:10])}, ... ({len(known)} in all)"
