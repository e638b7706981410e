"""KerasHub's published parameter counts, read from its installed preset files without importing it.

Every KerasHub model folder has a ``<model>_presets.py`` holding a ``backbone_presets`` dict whose
entries carry ``metadata["params"]``. That figure is independent of our formula and of our build,
so it is a second check. Reading the file as data (``ast.literal_eval``) keeps TensorFlow out.
"""

from __future__ import annotations

import ast
import importlib.util
from functools import cache
from pathlib import Path

from paramcount.model import discovery

__all__ = ["keras_hub_root", "preset_model", "preset_names", "published_params", "unlisted"]


def keras_hub_root() -> Path | None:
    spec = importlib.util.find_spec("keras_hub")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


@cache
def _all_presets() -> dict[str, dict]:
    root = keras_hub_root()
    out: dict[str, dict] = {}
    if root is None:
        return out
    for path in sorted((root / "src" / "models").glob("*/*_presets.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name)
                    and node.targets[0].id == "backbone_presets"):
                try:
                    presets = ast.literal_eval(node.value)
                except ValueError:
                    continue
                for name, entry in presets.items():
                    out[name] = {**entry.get("metadata", {}), "_model": path.parent.name}
    return out


def published_params(preset: str) -> int | None:
    """The ``params`` figure KerasHub publishes for a preset, or None if it has none."""
    meta = _all_presets().get(preset)
    if not meta or not isinstance(meta.get("params"), int):
        return None
    return meta["params"]


def preset_names() -> list[str]:
    return sorted(_all_presets())


def preset_model(preset: str) -> str | None:
    """The KerasHub model folder a preset belongs to (BERT's for ``bge_small_en``), or None."""
    meta = _all_presets().get(preset)
    return None if meta is None else meta["_model"]


@cache
def unlisted() -> dict[str, str]:
    """KerasHub presets of a family paramcount covers that no preset file lists, each with the
    reason, as the family folders declare them (``families/<family>/unlisted.py``: ``UNLISTED``;
    a test keeps these tables and the preset files together covering every such preset)."""
    return discovery.family_tables("unlisted", "UNLISTED")
