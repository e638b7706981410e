"""The family folders, found by name: :func:`ids` reads every folder's ``IDS`` line as text,
without importing anything, so that :func:`paramcount.model.registry.get` imports the one family it
needs (the fast ``count`` path) and no hand-kept list can drift (``tests/test_registry.py`` checks
that each folder registers exactly its ``IDS``). :func:`preset_file` finds a preset file by its name
the same way. What a family folder holds is said in :mod:`paramcount.families`.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "families"  # paramcount/families/
_IDS = re.compile(r"^IDS\s*(?::[^=]*)?=\s*(\([^)]*\))", re.MULTILINE)


_NAME = re.compile(r"[a-z][a-z0-9_.]{0,63}\Z")  # a folder's or preset file's name, nothing else


def _named(name: str) -> bool:
    """Whether ``name`` can name a folder or preset file here (never "", a path, a glob or a
    name longer than the file system takes)."""
    return bool(_NAME.match(name)) and ".." not in name


def folders() -> list[str]:
    """Every family folder, by name."""
    return sorted(p.name for p in HERE.iterdir()
                  if not p.name.startswith(("_", ".")) and (p / "__init__.py").is_file())


@cache
def declared_ids(family: str) -> tuple[str, ...]:
    """The ids a family's folder declares (its ``IDS = (...)`` literal), read without import."""
    text = (HERE / family / "__init__.py").read_text(encoding="utf-8")
    found = _IDS.search(text)
    if found is None:
        raise ValueError(f"paramcount/families/{family}/__init__.py declares no IDS = (...)")
    ids = ast.literal_eval(found.group(1))
    return (ids,) if isinstance(ids, str) else tuple(ids)


def declares(family: str, arch_id: str) -> bool:
    """Whether a folder ``family`` exists and declares ``arch_id``."""
    return (_named(family) and (HERE / family / "__init__.py").is_file()
            and arch_id in declared_ids(family))


@cache
def ids() -> dict[str, str]:
    """Built-in id -> the family folder that registers it."""
    out: dict[str, str] = {}
    for family in folders():
        for arch_id in declared_ids(family):
            if arch_id in out:
                raise ValueError(f"id {arch_id!r} is declared by both families/{out[arch_id]} "
                                 f"and families/{family}")
            out[arch_id] = family
    return out


@cache
def preset_file(name: str) -> Path | None:
    """The packaged preset file named ``name``: ``families/<name>/presets.toml``, else the one
    ``families/<family>/<name>.toml``; None when there is none."""
    if not _named(name):
        return None
    own = HERE / name / "presets.toml"
    if own.is_file():
        return own
    found = sorted(HERE.glob(f"*/{name}.toml"))
    return found[0] if found else None


def preset_label(name: str) -> str:
    """Where a packaged preset file sits, as the report and ``count`` name it."""
    path = preset_file(name)
    return path.relative_to(HERE.parent).as_posix() if path else f"families/{name}/presets.toml"
