"""The exceptions paramcount raises for bad input.

Every one of them is a :class:`ParamcountError`; the CLI turns each into one line on stderr and
exit status 2. Each is also a ``ValueError`` (or ``KeyError``-free lookup) so library callers can
catch them the usual way.
"""

from __future__ import annotations

__all__ = [
    "ParamcountError",
    "UnknownArchitectureError",
    "UnknownPresetError",
    "UnknownSymbolError",
    "HyperparameterError",
    "ConstraintError",
    "InputFileError",
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
