"""The optional parts of paramcount, by the name a user installs them under.

The core package needs SymPy alone: ``list``, ``formula``, ``count`` (``--config`` too) and
``solve`` answer from the formulas. What builds or draws a model is an *extra* of the package
(``pyproject.toml``'s ``[project.optional-dependencies]`` names the same distributions;
``tests/test_extras.py`` holds the two together):

- ``keras``: the Keras reference (``verify``, ``prove``);
- ``transformers``: the PyTorch / HF transformers reference (``--framework transformers|all``);
- ``checkpoints``: the checkpoint readers (safetensors, GGUF, HDF5);
- ``report``: ``paramcount report`` (the Keras reference and Matplotlib for its figures).

A command that needs an extra which is not installed says which, in one line, before it does any
work (:func:`require`). Whether a module is installed is asked of the import system
(:func:`importlib.util.find_spec`), which imports nothing: the check costs no TensorFlow import.
"""

from __future__ import annotations

import importlib.util
import sys

from paramcount.core.errors import ParamcountError

__all__ = ["EXTRAS", "MissingExtra", "install_hint", "missing", "require"]

# extra -> {module it provides: the distribution that installs it}
EXTRAS: dict[str, dict[str, str]] = {
    "keras": {"tensorflow": "tensorflow", "keras": "keras", "keras_hub": "keras-hub"},
    "transformers": {"torch": "torch", "transformers": "transformers"},
    "checkpoints": {"safetensors": "safetensors", "gguf": "gguf", "h5py": "h5py", "numpy": "numpy"},
    "report": {"tensorflow": "tensorflow", "keras": "keras", "keras_hub": "keras-hub",
               "matplotlib": "matplotlib"},
}


class MissingExtra(ParamcountError):
    """A command needs an extra that is not installed (exit status 2, like any bad setup)."""


def _absent(module: str) -> bool:
    if module in sys.modules:
        return sys.modules[module] is None  # None: the import system's mark for "not there"
    try:
        return importlib.util.find_spec(module) is None
    except (ImportError, ValueError):
        return True


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be imported here, in the extra's order."""
    return [m for m in EXTRAS[extra] if _absent(m)]


def install_hint(extra: str) -> str:
    return f"pip install 'paramcount[{extra}]'"


def require(extra: str, what: str) -> None:
    """Nothing when ``extra`` is installed; else :class:`MissingExtra`: ``what`` needs it, the
    modules that are missing, and the command that installs them."""
    absent = missing(extra)
    if absent:
        raise MissingExtra(f"{what} needs the {extra} extra ({', '.join(absent)} not installed): "
                           f"{install_hint(extra)}")
