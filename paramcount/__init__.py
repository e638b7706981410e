"""paramcount: exact, symbolic parameter counts for neural language models, proven against Keras.

Example:
    >>> import paramcount
    >>> paramcount.count("gpt2", preset="gpt2_base_en")
    124439808
    >>> paramcount.breakdown("gpt2", "gpt2_base_en")          # a table in Jupyter
    >>> paramcount.verify("gpt2", preset="gpt2_base_en").ok   # builds the KerasHub model
    True

Importing this package imports SymPy, not TensorFlow: only :func:`verify` (and ``prove``,
``report``) import Keras, when called.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module

__version__ = "0.1.0"

# Resolved on first use (PEP 562), so that importing a submodule — the pytest plugin, loaded in
# every pytest run of an environment that has paramcount — costs nothing. (The registry's
# ``architectures()`` is not lifted here: ``paramcount.architectures`` is the package of
# built-in architecture modules.)
_LAZY = {
    "Architecture": "paramcount.model.registry",
    "get": "paramcount.model.registry",
    "load_plugins": "paramcount.model.registry",
    "register": "paramcount.model.registry",
    "ParamcountError": "paramcount.core.errors",
    "Verification": "paramcount.analyze.verify",
    "breakdown": "paramcount.output.render",
    "verify": "paramcount.analyze.verify",
}

__all__ = [*sorted(_LAZY), "count"]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'paramcount' has no attribute {name!r}")


def count(arch, hparams: Mapping[str, int] | None = None, *, preset: str | None = None) -> int:
    """Trainable parameters of ``arch`` (an id or an Architecture) at a preset and/or
    hyperparameter values; formula only."""
    from paramcount.model.registry import get

    arch = get(arch) if isinstance(arch, str) else arch
    return arch.count(arch.resolve(arch.given(preset, hparams)))
