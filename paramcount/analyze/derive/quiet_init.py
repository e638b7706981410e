"""Weight initialisation skipped in derive's meta builds, where it writes nothing.

A build on the meta device allocates no data, yet transformers' ``post_init`` still walks every
module through ``_init_weights`` and torch's ``reset_parameters``: ``normal_``, ``uniform_``,
``kaiming_uniform_``… each a dispatch, a fan computation and a ``torch.no_grad`` block, a
quarter of a meta build's time. None of it changes a shape or which weights exist. Within
:func:`skipped`, every init primitive of ``torch.nn.init`` (and of the torch modules that bound
one by name at import, transformers' ``TORCH_MODULES_TO_PATCH``) and transformers' own guarded
copies (``transformers.initialization``, which call the originals through its
``TORCH_INIT_FUNCTIONS`` table) return their tensor untouched — the tensor, never None: some
code uses the return value (``module.weight = init.normal_(...)``). Nothing else is patched:
``post_init`` and ``tie_weights`` run as they do, so a tied weight stays tied. Only for meta
builds: on a real device the weights would be left uninitialised.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any

__all__ = ["skipped"]

# what torch.nn.init names them (every name transformers' table lists; read from it when present)
_NAMES = ("uniform_", "normal_", "constant_", "ones_", "zeros_", "eye_", "dirac_",
          "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
          "trunc_normal_", "orthogonal_", "sparse_")
_MODULES = ("torch.nn.init", "torch.nn.modules.activation", "torch.nn.modules.transformer",
            "torch.nn.modules.linear", "torch.nn.modules.loss", "torch.nn.modules.batchnorm",
            "torch.nn.modules.conv", "torch.nn.modules.normalization", "torch.nn.modules.rnn",
            "torch.nn.modules.sparse")


def _untouched(tensor: Any, *args: Any, **kwargs: Any) -> Any:
    """An init primitive that writes nothing and returns its tensor (as the real ones do)."""
    return tensor


@contextlib.contextmanager
def skipped() -> Iterator[None]:
    """Within the block, torch's and transformers' weight-init primitives are no-ops that
    return their tensor; restored on exit (nested use restores the outer block's state)."""
    saved: list[tuple[Any, str, Any]] = []
    table: dict[str, Any] | None = None
    try:
        from transformers import initialization

        table = initialization.TORCH_INIT_FUNCTIONS
        modules = tuple(getattr(initialization, "TORCH_MODULES_TO_PATCH", _MODULES))
        names = tuple(table)
    except ImportError:  # a user's torch builder without transformers installed
        modules, names = _MODULES, _NAMES
    try:
        for m in modules:
            module = sys.modules.get(m)
            for name in names if module is not None else ():
                if callable(getattr(module, name, None)):
                    saved.append((module, name, getattr(module, name)))
                    setattr(module, name, _untouched)
        if table is not None:
            for name in names:
                saved.append((table, name, table[name]))
                table[name] = _untouched
        yield
    finally:
        for owner, name, value in reversed(saved):
            if isinstance(owner, dict):
                owner[name] = value
            else:
                setattr(owner, name, value)
