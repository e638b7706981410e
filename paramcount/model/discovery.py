"""The family folders, found by name: :func:`ids` reads every folder's ``IDS`` line as text,
without importing anything, so that :func:`paramcount.model.registry.get` imports the one family it
needs (the fast ``count`` path) and no hand-kept list can drift (``tests/test_registry.py`` checks
that each folder registers exactly its ``IDS``). :func:`preset_file` finds a preset file by its name
the same way. What a family folder holds is said in :mod:`paramcount.families`.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from types import ModuleType

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


def family_of(arch_id: str) -> str | None:
    """The family folder of a built-in id: the folder of its name when it declares it (one file
    read), else the one whose IDS does (every folder's IDS line read); None for any other id."""
    if declares(arch_id, arch_id):
        return arch_id
    return ids().get(arch_id)


# --- The tables a family declares beside its formula -----------------------------------------
# A family's folder holds every table of its family (its task heads in ``heads.py``, its options
# in ``options.py``, ...); the central module that applies a table asks the folders for it here,
# and names no family itself. One family's table (:func:`family_table`) loads that one file, so
# the fast count path stays one family deep; every family's (:func:`family_tables`) loads each
# folder's. A table file is loaded by its path, without its family's ``__init__`` (no formula is
# built for a table; a table file that needs its family's objects imports them itself).


def _table_module(family: str, module: str) -> ModuleType | None:
    """``families/<family>/<module>.py`` as module ``paramcount.families.<family>.<module>``,
    loaded once; None when the folder has no such file."""
    name = f"paramcount.families.{family}.{module}"
    if name in sys.modules:
        return sys.modules[name]
    path = HERE / family / f"{module}.py"
    if not (_named(family) and _named(module) and path.is_file()):
        return None
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None  # a .py file that exists
    found = importlib.util.module_from_spec(spec)
    sys.modules[name] = found
    try:
        spec.loader.exec_module(found)
    except BaseException:
        del sys.modules[name]  # a failed load leaves nothing half made behind
        raise
    return found


def family_table(family: str | None, module: str, name: str) -> Mapping:
    """The table ``name`` (a mapping) of ``families/<family>/<module>.py``; empty when the folder
    has no such file or the file no such table, or ``family`` is None (no built-in family)."""
    found = _table_module(family, module) if family is not None else None
    return getattr(found, name, {}) if found is not None else {}


def family_tables(module: str, name: str) -> dict:
    """Every folder's table ``name`` of its ``<module>.py``, merged in folder order; a key two
    folders declare is an error, as an id two folders declare is."""
    out: dict = {}
    owner: dict = {}
    for family in folders():
        for key, value in family_table(family, module, name).items():
            if key in out:
                raise ValueError(f"{key!r} is declared by both families/{owner[key]}/{module}.py "
                                 f"and families/{family}/{module}.py")
            out[key], owner[key] = value, family
    return out


# --- What a family says of its ids ---------------------------------------------------------------
# ``families/<family>/about.toml``: a table per id it registers, with the words and lists its
# declaration would otherwise spell out in code: ``title``, ``source`` and ``counting`` (the
# Architecture's), ``free`` (the config keys its table reads as changing no weight) and
# ``examples`` (name → hyperparameters). Its code gives what the file does not.
ABOUT = "about.toml"
ABOUT_KEYS = frozenset({"title", "source", "counting", "free", "examples"})


@cache
def about(family: str) -> Mapping[str, Mapping]:
    """``families/<family>/about.toml``, id → what it says of that id (empty without the file).
    An id the folder does not declare, or a key no declaration takes, is an error."""
    import tomllib

    path = HERE / family / ABOUT
    if not (_named(family) and path.is_file()):
        return {}
    with path.open("rb") as f:
        data = tomllib.load(f)
    for arch_id, entry in data.items():
        unknown = set(entry) - ABOUT_KEYS if isinstance(entry, dict) else {"(not a table)"}
        if arch_id not in declared_ids(family) or unknown:
            raise ValueError(f"paramcount/families/{family}/{ABOUT}: [{arch_id}] is not an id of "
                             f"its IDS with keys among {sorted(ABOUT_KEYS)}")
    return data


def calling_family() -> str | None:
    """The family folder whose module is running the calling code (the nearest on the call
    stack; a lineage module, ``families/_*.py``, is not a family), or None."""
    return next(_stack_families(), None)


def _stack_families():
    """The family folders whose modules are on the call stack, nearest first."""
    frame = sys._getframe(1)
    while frame is not None:
        parts = frame.f_globals.get("__name__", "").split(".")
        if parts[:2] == ["paramcount", "families"] and len(parts) > 2 and not parts[2].startswith("_"):
            yield parts[2]
        frame = frame.f_back  # type: ignore[assignment]


def said(arch_id: str, key: str, default=None):
    """What ``about.toml`` says of ``arch_id`` under ``key``, in the folder that declares the id
    among those whose code is running (XLM-RoBERTa's architecture is built by RoBERTa's code,
    called from XLM-RoBERTa's folder); ``default`` where no family's code is (a user's)."""
    family = next((f for f in _stack_families() if arch_id in declared_ids(f)), None)
    return about(family).get(arch_id, {}).get(key, default) if family else default


@cache
def preset_file(name: str) -> Path | None:
    """The packaged preset file named ``name``: ``families/<name>/presets.toml``, else the one
    ``families/<family>/<name>.toml`` (never a family's ``about.toml``); None when there is none."""
    if not _named(name) or f"{name}.toml" == ABOUT:
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
