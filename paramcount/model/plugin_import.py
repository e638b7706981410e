"""Importing a user's plugin module (``--plugin``, ``$PARAMCOUNT_PLUGINS``) by name or by path,
for :func:`paramcount.model.registry.load_plugins`: a failure is a :class:`PluginError` line."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from pathlib import Path

from paramcount.core.errors import InputFileError

__all__ = ["PluginError", "import_plugin"]


class PluginError(InputFileError):
    """A user module named by ``--plugin`` or ``$PARAMCOUNT_PLUGINS`` that cannot be loaded."""


def import_plugin(name: str) -> str:
    """Import the user module ``name`` (a module name, or a Python file's path); its name in
    ``sys.modules``. Any failure is one :class:`PluginError` line, never a traceback."""
    try:
        if name.endswith(".py") or os.sep in name or "/" in name:
            path = Path(name).resolve()
            if not path.is_file():
                raise PluginError(f"plugin {name!r}: no such file")
            digest = hashlib.sha1(str(path).encode()).hexdigest()[:8]
            mod_name = f"paramcount_plugin_{path.stem}_{digest}"
            if mod_name in sys.modules:
                return mod_name
            spec = importlib.util.spec_from_file_location(mod_name, path)
            if spec is None or spec.loader is None:  # a suffix no import loader reads (not .py)
                raise PluginError(f"plugin {name!r}: not a Python source file")
            module = importlib.util.module_from_spec(spec)
            sys.modules[mod_name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                sys.modules.pop(mod_name, None)
                raise
            return mod_name
        if "" not in sys.path and os.getcwd() not in sys.path:
            sys.path.append(os.getcwd())  # `paramcount --plugin mymod` from the project folder
        importlib.import_module(name)
        return name
    except PluginError:
        raise
    except ModuleNotFoundError as exc:
        raise PluginError(f"plugin {name!r}: {exc}") from None
    except Exception as exc:  # a plugin that fails to import: one line, not a traceback
        raise PluginError(f"plugin {name!r} failed to load: {type(exc).__name__}: {exc}") from exc
