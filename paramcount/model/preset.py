"""A preset (published hyperparameters of a checkpoint, or a named example set), a preset paired
with its architecture, and the preset files they are read from (:func:`load_presets`, also
``paramcount.model.registry.load_presets``)."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from paramcount.core import symbols
from paramcount.core.errors import InputFileError, ParamcountError
from paramcount.core.hparams import check_value
from paramcount.model.cards import Card, parse_figure

if TYPE_CHECKING:
    from paramcount.model.registry import Architecture

__all__ = ["HparamSet", "Preset", "load_presets", "parse_presets"]


@dataclass(frozen=True)
class Preset:
    """Published hyperparameters of a checkpoint (or a named example set)."""

    name: str
    hparams: Mapping[str, int]
    source: str
    keras_hub: str | None = None  # KerasHub preset whose metadata "params" is a second check
    official: bool = True
    # Where KerasHub's published figure disagrees with its own build: why (a finding, reported).
    keras_hub_differs: str | None = None
    # What the model card states (paramcount.model.cards): its total and active figures, and why the
    # count does not round to them where it does not (a finding, reported).
    card: Card | None = None
    # The checkpoint's transformers config fields that change no weight but a cost (its
    # sliding_window, null for none): what count --context reads from a preset, as from a config.
    config: Mapping[str, int | None] = field(default_factory=dict)


@dataclass(frozen=True)
class HparamSet:
    """An architecture paired with one named hyperparameter set, resolved."""

    arch: Architecture
    preset: Preset

    @property
    def name(self) -> str:
        return self.preset.name

    @property
    def hparams(self) -> dict[str, int]:
        return self.arch.resolve(self.preset.hparams)


# --- preset files -------------------------------------------------------------------------------
@cache
def load_presets(family: str | Path) -> dict[str, Preset]:  # a cache key: hashable, so Path
    """Read the packaged preset file named ``family`` (``paramcount/families/<family>/presets.toml``
    or ``families/<folder>/<family>.toml``: :func:`paramcount.discovery.preset_file`), or a preset
    file at a path: one table per preset.

    Each table has ``source`` (where the numbers come from), optional ``keras_hub`` (the
    KerasHub preset name whose metadata ``params`` is compared), and ``hparams``.
    """
    if isinstance(family, os.PathLike) or str(family).endswith(".toml"):
        path = Path(family)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise InputFileError(f"cannot read preset file {path}: {exc.strerror or exc}") from None
        except tomllib.TOMLDecodeError as exc:
            raise InputFileError(f"{path}: {exc}") from None
        return parse_presets(data, str(path))
    from paramcount.model import discovery

    ref, where = discovery.preset_file(str(family)), discovery.preset_label(str(family))
    try:
        if ref is None:
            raise FileNotFoundError(where)
        data = tomllib.loads(ref.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputFileError(f"no preset file for {family!r}") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputFileError(f"{where}: {exc}") from None
    return parse_presets(data, where)


def parse_presets(data: Mapping, where: str) -> dict[str, Preset]:
    out: dict[str, Preset] = {}
    for name, table in data.items():
        if not isinstance(table, dict) or not isinstance(table.get("hparams"), dict):
            raise InputFileError(f"{where}: preset {name!r} needs an [{name}.hparams] table")
        source = table.get("source")
        if not isinstance(source, str) or not source:
            raise InputFileError(f"{where}: preset {name!r} needs a source")
        hp = table["hparams"]
        for k, val in hp.items():
            try:
                symbols.info(k)
                if isinstance(val, bool) or not isinstance(val, int):
                    raise InputFileError(f"{k} = {val!r} is not an integer")
                check_value(k, val)
            except ParamcountError as exc:
                raise type(exc)(f"{where}: preset {name!r}: {exc}") from None
        for key in ("keras_hub", "keras_hub_differs"):
            if key in table and (not isinstance(table[key], str) or not table[key].strip()):
                raise InputFileError(f"{where}: preset {name!r}: {key} = {table[key]!r} is not "
                                     "a non-empty string")
        extra = set(table) - {"hparams", "source", "keras_hub", "keras_hub_differs", "card", "config"}
        if extra:
            raise InputFileError(f"{where}: preset {name!r}: unknown keys {sorted(extra)}")
        out[name] = Preset(name, dict(hp), source, table.get("keras_hub"),
                           keras_hub_differs=table.get("keras_hub_differs"),
                           card=_card(table["card"], f"{where}: preset {name!r}")
                           if "card" in table else None,
                           config=_config(table.get("config", {}), f"{where}: preset {name!r}"))
    return out


def _config(table: object, where: str) -> dict[str, int | None]:
    """A preset's ``config``: an inline table of config fields, each a positive integer, or
    "none" for the null of the checkpoint's config.json (TOML has no null)."""
    if not isinstance(table, dict) or not all(
            v == "none" or (type(v) is int and v > 0) for v in table.values()):
        raise InputFileError(f"{where}: config must be a table of positive integers or \"none\" "
                             f"(a null), such as {{ sliding_window = \"none\" }}; got {table!r}")
    return {k: None if v == "none" else v for k, v in table.items()}


def _card(table: object, where: str) -> Card:
    """A preset's ``card = { total = "685B", active = "37B", why = "..." }``."""
    if not isinstance(table, dict) or not table or set(table) - {"total", "active", "why"}:
        raise InputFileError(f"{where}: card takes total, active (figures such as \"685B\") "
                             "and why")
    for key, val in table.items():
        if not isinstance(val, str) or not val.strip():
            raise InputFileError(f"{where}: card {key} = {val!r} is not a non-empty string")
        if key != "why":
            try:
                parse_figure(val)
            except ValueError as exc:
                raise InputFileError(f"{where}: card {key}: {exc}") from None
    return Card(table.get("total"), table.get("active"), table.get("why"))
