"""The architecture registry and the preset data files.

Each module of :mod:`paramcount.architectures` calls :func:`register` for the architectures it
defines; :func:`get` and :func:`architectures` import that package on first use, so the registry
is filled by registration calls, not by a hand-kept list. Nothing here imports TensorFlow: the
reference model is named by a ``"module:function"`` string and imported only by the verifier.
"""

from __future__ import annotations

import importlib
import pkgutil
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

import sympy

from paramcount import symbols
from paramcount.errors import InputFileError, UnknownArchitectureError, UnknownPresetError
from paramcount.formula import Term
from paramcount.hparams import Constraint, resolve

__all__ = ["Architecture", "Preset", "HparamSet", "register", "unregister", "get", "architectures",
           "load_presets"]


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


@dataclass(frozen=True)
class Architecture:
    """One architecture: its formula tree, its hyperparameters and how Keras checks it.

    Args:
        id: str. Registry id (KerasHub's model folder name where KerasHub has the model).
        title: str. One line for ``paramcount list``.
        source: str. Paper and implementation the formula follows.
        formula: Term. The formula tree.
        required: tuple of Symbol. Hyperparameters a user must give.
        optional: mapping Symbol -> expr. Settable hyperparameters with defaults (may use others).
        fixed: mapping Symbol -> expr. Values the reference implementation imposes.
        constraints: tuple of Constraint. Checked on every hyperparameter set.
        reference: str. ``"module:function"`` building the Keras model from hyperparameters.
        counting: str. What the count includes and excludes (heads, tied weights).
        presets: str, tuple of str, or None. Preset files ``paramcount/presets/<name>.toml``.
        keras_hub_metadata: bool. Whether KerasHub's published ``params`` counts this model.
        examples: mapping name -> hyperparameters. Small sets verified with the presets.
        family: str. Grouping in the report (``paper``, ``keras_hub``, ...).
    """

    id: str
    title: str
    source: str
    formula: Term
    required: tuple[sympy.Symbol, ...]
    reference: str
    counting: str
    optional: Mapping[sympy.Symbol, sympy.Expr] = field(default_factory=dict)
    fixed: Mapping[sympy.Symbol, sympy.Expr] = field(default_factory=dict)
    constraints: tuple[Constraint, ...] = ()
    presets: str | tuple[str, ...] | None = None
    keras_hub_metadata: bool = False
    examples: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    family: str = "transformer"

    def __post_init__(self) -> None:
        declared = set(self.required) | set(self.optional) | set(self.fixed)
        undeclared = self.formula.free_symbols() - declared
        if undeclared:
            names = ", ".join(sorted(s.name for s in undeclared))
            raise ValueError(f"{self.id}: formula uses undeclared symbols {names}")
        for sym in declared:
            symbols.info(sym)  # every symbol must be in the vocabulary
        object.__setattr__(self, "optional", {k: sympy.sympify(v) for k, v in self.optional.items()})
        object.__setattr__(self, "fixed", {k: sympy.sympify(v) for k, v in self.fixed.items()})

    # --- hyperparameters ------------------------------------------------------------------------
    @property
    def settable(self) -> tuple[sympy.Symbol, ...]:
        return (*self.required, *self.optional)

    def resolve(self, given: Mapping[str, int]) -> dict[str, int]:
        """Validate ``given`` and fill in defaults; raises a ParamcountError on bad input."""
        return resolve(self.id, given, required=self.required, optional=self.optional,
                       fixed=self.fixed, constraints=self.constraints)

    def values(self, hparams: Mapping[str, int]) -> dict[sympy.Symbol, int]:
        return {symbols.get(k): v for k, v in hparams.items()}

    def presets_table(self) -> dict[str, Preset]:
        """The published presets of this architecture, in file order."""
        files = (self.presets,) if isinstance(self.presets, str) else (self.presets or ())
        out: dict[str, Preset] = {}
        for f in files:
            out.update(load_presets(f))
        return out

    def hparam_sets(self) -> list[HparamSet]:
        """Every published preset of the architecture, then its example sets."""
        sets = [HparamSet(self, p) for p in self.presets_table().values()]
        for name, hp in self.examples.items():
            sets.append(HparamSet(self, Preset(name, hp, "paramcount example", official=False)))
        return sets

    def preset(self, name: str) -> Preset:
        presets = self.presets_table()
        if name in presets:
            return presets[name]
        if name in self.examples:
            return Preset(name, self.examples[name], "paramcount example", official=False)
        known = ", ".join([*presets, *self.examples]) or "none"
        raise UnknownPresetError(f"unknown preset {name!r} for {self.id}; known: {known}")

    # --- formula --------------------------------------------------------------------------------
    def total(self) -> sympy.Expr:
        return self.formula.total()

    def count(self, hparams: Mapping[str, int]) -> int:
        return self.formula.evaluate(self.values(hparams))

    def _repr_latex_(self) -> str:
        return self.formula._repr_latex_()


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


_REGISTRY: dict[str, Architecture] = {}
_LOADED = False


def register(arch: Architecture, *, replace: bool = False) -> Architecture:
    if arch.id in _REGISTRY and not replace:
        raise ValueError(f"architecture {arch.id!r} is already registered")
    _REGISTRY[arch.id] = arch
    return arch


def unregister(arch_id: str) -> None:
    _REGISTRY.pop(arch_id, None)


def _load_builtin() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    from paramcount import architectures as pkg

    for mod in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if not mod.name.startswith("_"):
            importlib.import_module(f"{pkg.__name__}.{mod.name}")


def architectures() -> dict[str, Architecture]:
    _load_builtin()
    return dict(_REGISTRY)


def get(arch_id: str) -> Architecture:
    _load_builtin()
    try:
        return _REGISTRY[arch_id]
    except KeyError:
        raise UnknownArchitectureError(
            f"unknown architecture {arch_id!r}; known: {', '.join(sorted(_REGISTRY))}") from None


@cache
def load_presets(family: str) -> dict[str, Preset]:
    """Read ``paramcount/presets/<family>.toml``: one table per preset.

    Each table has ``source`` (where the numbers come from), optional ``keras_hub`` (the
    KerasHub preset name whose metadata ``params`` is compared), and ``hparams``.
    """
    ref = resources.files("paramcount.presets").joinpath(f"{family}.toml")
    try:
        data = tomllib.loads(ref.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputFileError(f"no preset file for {family!r}") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputFileError(f"presets/{family}.toml: {exc}") from None
    return parse_presets(data, f"presets/{family}.toml")


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
            symbols.info(k)
            if isinstance(val, bool) or not isinstance(val, int):
                raise InputFileError(f"{where}: preset {name!r}: {k} = {val!r} is not an integer")
        extra = set(table) - {"hparams", "source", "keras_hub", "keras_hub_differs"}
        if extra:
            raise InputFileError(f"{where}: preset {name!r}: unknown keys {sorted(extra)}")
        out[name] = Preset(name, dict(hp), source, table.get("keras_hub"),
                           keras_hub_differs=table.get("keras_hub_differs"))
    return out
