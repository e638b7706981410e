"""The architecture registry and the preset data files.

Each family folder of :mod:`paramcount.families` calls :func:`register` for the architectures it
defines and declares their ids (``IDS``, read without importing: :func:`paramcount.model.discovery.ids`),
so :func:`get` imports just that one family and :func:`architectures` all of them. Nothing here imports TensorFlow: the
reference model is named by a ``"module:function"`` string (or given as a callable whose module
imports Keras only inside it) and built only by the verifier.

Users register architectures of their own the same way, from any module: call :func:`register`
at import, and load the module with :func:`load_plugins` (the CLI's ``--plugin MODULE`` option
or the ``PARAMCOUNT_PLUGINS`` environment variable do that), or declare it in an installed
package's ``paramcount.architectures`` entry-point group (name: the id; value: the module).
See ``examples/user_architecture``.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import sympy

from paramcount.core import symbols
from paramcount.core.errors import (
    UnknownArchitectureError,
    UnknownPresetError,
    did_you_mean,
)
from paramcount.core.formula import Term, to_int
from paramcount.core.hparams import Constraint, resolve
from paramcount.core.restrictions import Derived, DerivedMap, Holds, Restriction, architecture, like
from paramcount.model import discovery
from paramcount.model.plugin_import import PluginError, import_plugin
from paramcount.model.preset import HparamSet, Preset, load_presets

if TYPE_CHECKING:
    from paramcount.model.frameworks import Transformers
    from paramcount.model.mapping import Table

__all__ = [
    "PLUGINS_ENV",
    "Architecture",
    "HparamSet",
    "PluginError",
    "Preset",
    "architectures",
    "get",
    "load_plugins",
    "load_presets",
    "register",
    "unregister",
]


@dataclass(frozen=True, kw_only=True)
class Architecture:
    """One architecture: its formula tree, its hyperparameters and how Keras checks it.

    Args:
        id: str. Registry id (KerasHub's model folder name where KerasHub has the model).
        title: str. One line for ``paramcount list``. A built-in family may leave title,
            source, counting and examples to its folder's ``about.toml``.
        source: str. Paper and implementation the formula follows.
        formula: Term. The formula tree.
        required: tuple of Symbol. Hyperparameters a user must give.
        optional: mapping Symbol -> expr. Settable hyperparameters with defaults (may use others).
        restrictions: tuple of Restriction (paramcount.core.restrictions): ``fixed`` and ``constraints``
            derive from its rows binding all, ``notes`` from its rows binding forward; given,
            they replace what it derives.
        reference: str or callable. ``"module:function"``, or the function itself, building the
            Keras model from a dict of resolved hyperparameters (symbol name -> int). A callable
            should import Keras inside its body so that ``formula`` and ``count`` stay light.
        counting: str. What the count includes and excludes (heads, tied weights).
        presets: str, path, or a tuple of them, or None. A name ``<name>`` is the packaged file
            ``paramcount/families/<name>/presets.toml`` (or ``families/<family>/<name>.toml``);
            a path (a ``pathlib.Path``, or a string ending in ``.toml``) is a preset file of the
            user's own, in the same format.
        keras_hub_metadata: bool. Whether KerasHub's published ``params`` counts this model.
        examples: mapping name -> hyperparameters. Small sets verified with the presets.
        origin: str. Where the architecture comes from, for grouping (``keras_hub``, ``paper``,
            ``transformers``, ``derived``, ...); not its family (the model's folder).
        family: str. The former name of ``origin``, still accepted (plugins written before).
        mapping: paramcount.model.mapping.Table or None. The family's symbol ↔ KerasHub argument ↔
            HF config key table: the reference builders' arguments and the config readers.
        transformers: paramcount.model.frameworks.Transformers or None. Where transformers'
            parameters sit on the tree (by name), and its declared deltas.
    """

    id: str
    formula: Term
    required: tuple[sympy.Symbol, ...]
    reference: str | Callable[[dict[str, int]], object]
    # The words: given here, or (a built-in family's) in its folder's about.toml
    title: str = ""
    source: str = ""
    counting: str = ""
    optional: Mapping[sympy.Symbol, sympy.Expr] = field(default_factory=dict)
    fixed: Mapping[sympy.Symbol, sympy.Expr] = field(default_factory=DerivedMap)
    constraints: tuple[Constraint, ...] = field(default_factory=Derived)
    # What a forward pass needs, no build (rows binding forward): a note, not a refusal.
    notes: tuple[Holds, ...] = field(default_factory=Derived)
    restrictions: tuple[Restriction, ...] = field(default=(), compare=False, repr=False)
    presets: str | Path | tuple[str | Path, ...] | None = None
    keras_hub_metadata: bool = False
    examples: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    origin: str = "transformer"
    # The family's table symbol ↔ KerasHub argument ↔ HF key (paramcount.model.mapping.Table), read by
    # the reference builders and the config readers; None where no config reader exists yet.
    mapping: Table | None = None
    # Where transformers' parameters sit on the tree, and its deltas
    # (paramcount.model.frameworks.Transformers); None where there is no transformers reference.
    transformers: Transformers | None = None
    # The frameworks that build (and so check) this architecture; None: Keras, and transformers
    # where ``transformers`` is declared. ("transformers",) for a model KerasHub's constructor
    # cannot express (Falcon-7B/40B): its ``reference`` is then never called.
    frameworks: tuple[str, ...] | None = None
    # The former name of ``origin`` (it meant the origin, not the family): accepted, kept equal.
    family: str | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._described()
        for word in ("title", "source", "counting"):
            if not getattr(self, word):
                raise ValueError(f"{self.id}: no {word} (give it, or a built-in family's about.toml does)")
        if self.family is not None and self.origin == "transformer":
            object.__setattr__(self, "origin", self.family)
        object.__setattr__(self, "family", self.origin)
        self.__dict__.update(architecture(self))  # fixed and constraints (frozen: set directly)
        declared = set(self.required) | set(self.optional) | set(self.fixed)
        undeclared = self.formula.free_symbols() - declared
        if undeclared:
            names = ", ".join(sorted(s.name for s in undeclared))
            raise ValueError(f"{self.id}: formula uses undeclared symbols {names}")
        for sym in declared:
            symbols.info(sym)  # every symbol must be in the vocabulary
        object.__setattr__(self, "optional", {k: sympy.sympify(v) for k, v in self.optional.items()})
        object.__setattr__(self, "fixed", like(self.fixed, {k: sympy.sympify(v) for k, v in self.fixed.items()}))

    def _described(self) -> None:
        """The words and examples its family's ``about.toml`` says of this id, where that family's
        code declares it (:func:`paramcount.model.discovery.said`): its own, over a lineage's
        defaults."""
        for word in ("title", "source", "counting", "examples"):
            said = discovery.said(self.id, word)
            if said is not None:
                object.__setattr__(self, word, said)

    @property
    def checked_by(self) -> tuple[str, ...]:
        """The frameworks whose builds check this architecture's formula."""
        if self.frameworks is not None:
            return tuple(self.frameworks)
        return ("keras", "transformers") if self.transformers is not None else ("keras",)

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
        files = (self.presets,) if isinstance(self.presets, (str, os.PathLike)) else (self.presets or ())
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
        raise UnknownPresetError(did_you_mean(name, [*presets, *self.examples], "preset")
                                 .replace(f"{name!r};", f"{name!r} for {self.id};", 1))

    # --- formula --------------------------------------------------------------------------------
    def total(self) -> sympy.Expr:
        """The trainable-parameter formula (the paper's quantity)."""
        return self.formula.trainable_total(True)

    def evaluate(self, expr: sympy.Expr, hparams: Mapping[str, int], what: str = "") -> int:
        """An expression of this architecture's symbols at resolved ``hparams``, exactly: the
        one way a formula (or any part of its tree) is evaluated."""
        return to_int(expr, self.values(hparams), what or self.id)

    def count(self, hparams: Mapping[str, int]) -> int:
        """Trainable parameters at ``hparams`` (non-trainable ones: :meth:`count_nontrainable`)."""
        return self.evaluate(self.total(), hparams)

    def count_nontrainable(self, hparams: Mapping[str, int]) -> int:
        return self.evaluate(self.formula.trainable_total(False), hparams)

    def count_active(self, hparams: Mapping[str, int]) -> int:
        """Parameters one token uses (top-k of E experts); the total where there is no router."""
        return self.evaluate(self.formula.active_total(), hparams)

    def given(self, preset: str | Preset | None = None,
              hparams: Mapping[str, int] | None = None) -> dict[str, int]:
        """A preset's hyperparameters (by name or as a Preset) with ``hparams`` on top, not yet
        resolved: the one way a preset and overrides are merged."""
        if isinstance(preset, str):
            preset = self.preset(preset)
        return {**(preset.hparams if preset is not None else {}), **(hparams or {})}

    def __hash__(self) -> int:
        # The mappings make the generated hash fail; equal architectures share these fields.
        return hash((self.id, self.title, self.source, self.formula.name))

    def _latex(self, printer=None) -> str:
        """``sympy.latex(arch)``: the architecture's formula, ``N_{<id>} = ...``."""
        name = self.id.replace("_", r"\_")  # an id's underscore is part of its name, not a subscript
        return f"N_{{\\mathrm{{{name}}}}} = {self.formula.latex()}"

    def _repr_latex_(self) -> str:
        return f"$\\displaystyle {self._latex()}$"

    def columns(self, *presets: str, **hparams: int) -> tuple[tuple[str, dict[str, int]], ...]:
        """Named, resolved hyperparameter sets: one per preset (``hparams`` on top of each), or
        ``hparams`` alone as "custom"; what :func:`paramcount.output.render.breakdown` tabulates."""
        sets: list[tuple[str, dict[str, int]]] = []
        for name in presets:
            sets.append((f"{name}+custom" if hparams else name,
                         self.resolve(self.given(name, hparams))))
        if not presets:
            sets.append(("custom", self.resolve(hparams)))
        return tuple(sets)


_REGISTRY: dict[str, Architecture] = {}
_LOADED = False
_IMPORTING_BUILTIN = False
ENTRY_POINTS = "paramcount.architectures"  # the entry-point group of users' architectures
_ENTRY_POINTS_LOADED: set[str] = set()


def _builtin_modules() -> dict[str, str]:
    """Built-in id -> family folder, from each folder's declared ``IDS`` (no import)."""
    return discovery.ids()


def _import_builtin(module: str) -> None:
    global _IMPORTING_BUILTIN
    outer, _IMPORTING_BUILTIN = _IMPORTING_BUILTIN, True
    try:
        importlib.import_module(f"paramcount.families.{module}")
    finally:
        _IMPORTING_BUILTIN = outer


def register(arch: Architecture, *, replace: bool = False) -> Architecture:
    """Add an architecture to the registry (from the module that defines it, at import).

    A user's architecture whose id is a built-in one is an error here (unless ``replace=True``),
    not a surprise later; a family folder may register only the ids its ``IDS`` declares.
    """
    if _IMPORTING_BUILTIN:  # its own folder's IDS alone (one file read: the fast count path)
        family = discovery.calling_family()
        if family is None or arch.id not in discovery.declared_ids(family):
            raise ValueError(f"built-in architecture {arch.id!r} is missing from the IDS of "
                             f"paramcount/families/{family}/__init__.py")
    elif arch.id in (builtin := _builtin_modules()):
        _import_builtin(builtin[arch.id])  # so that a replacement is not undone by it later
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
    for module in sorted(set(_builtin_modules().values())):
        _import_builtin(module)


def _entry_points(name: str | None = None) -> list:
    from importlib.metadata import entry_points

    eps = entry_points(group=ENTRY_POINTS)
    return [ep for ep in eps if name is None or ep.name == name]


def _load_entry_point(ep) -> None:
    """Load one entry point of the ``paramcount.architectures`` group: its name is an
    architecture id, its value a module that registers it at import (as ``--plugin`` does) or
    ``module:attr`` naming the :class:`Architecture` itself."""
    key = f"{ep.name}={ep.value}"
    if key in _ENTRY_POINTS_LOADED:
        return
    _ENTRY_POINTS_LOADED.add(key)
    try:
        obj = ep.load()
    except Exception as exc:  # a broken plugin: one line, not a traceback
        raise PluginError(f"entry point {ep.name!r} ({ep.value}) of {ENTRY_POINTS!r} failed to "
                          f"load: {type(exc).__name__}: {exc}") from exc
    if isinstance(obj, Architecture) and _REGISTRY.get(obj.id) is not obj:
        register(obj)


def architectures() -> dict[str, Architecture]:
    """Every architecture: the built-ins, the entry points' and those registered so far."""
    _load_builtin()
    for ep in _entry_points():
        _load_entry_point(ep)
    return dict(_REGISTRY)


def get(arch_id: str) -> Architecture:
    """The architecture ``arch_id``: a built-in imports just its family (its folder's IDS), a
    user's is found among those registered or the entry points named ``arch_id``."""
    if arch_id not in _REGISTRY and ":" in arch_id:  # another transformers class of a family
        return _derived(arch_id)
    if arch_id not in _REGISTRY:
        module = discovery.family_of(arch_id)
        if module is not None:
            _import_builtin(module)
        else:
            for ep in _entry_points(arch_id):
                _load_entry_point(ep)
    try:
        return _REGISTRY[arch_id]
    except KeyError:
        # a built-in family not imported yet is known too (by its IDS)
        raise UnknownArchitectureError(did_you_mean(
            arch_id, {*_builtin_modules(), *_REGISTRY}, "architecture")) from None


def _derived(arch_id: str) -> Architecture:
    """``<id>:<Class>``: architecture ``id`` as its family's transformers class ``Class`` builds
    it (paramcount.model.heads); ``<id>:<option>``: with an option only transformers builds
    (paramcount.model.options); ``<id>:<Class>:<option>``: that class with that option (RoBERTa's
    classifier with sixteen token types). Made once per process."""
    from paramcount.model import heads, options

    base, _, cls = arch_id.partition(":")
    names = (*heads.classes_of(base), *options.options_of(base), *options.combined(base))
    if cls not in names:
        known = [f"{base}:{c}" for c in names]
        raise UnknownArchitectureError(did_you_mean(
            arch_id, {*_builtin_modules(), *_REGISTRY, *known}, "architecture"))
    if arch_id not in _DERIVED:
        if ":" in cls:  # <id>:<Class>:<option>: the class's build with the option
            head, _, option = cls.partition(":")
            _DERIVED[arch_id] = options.derive(get(f"{base}:{head}"), option)
        else:
            derive = heads.derive if cls in heads.classes_of(base) else options.derive
            _DERIVED[arch_id] = derive(get(base), cls)
    return _DERIVED[arch_id]


_DERIVED: dict[str, Architecture] = {}


PLUGINS_ENV = "PARAMCOUNT_PLUGINS"


def load_plugins(names: Iterable[str] | None = None, *, env: bool = True) -> list[str]:
    """Import user modules that register architectures; returns the modules loaded.

    Each name is a module (``mypkg.archs``, importable from ``sys.path`` or the current folder)
    or the path of a Python file (``examples/user_architecture/sentiment.py``). With ``env``, the
    names in ``$PARAMCOUNT_PLUGINS`` (separated by commas or the path separator) come first.
    A module is imported once, however often it is named.
    """
    wanted: list[str] = []
    if env:
        raw = os.environ.get(PLUGINS_ENV, "")
        wanted += [x.strip() for x in raw.replace(os.pathsep, ",").split(",") if x.strip()]
    wanted += list(names or ())
    loaded = []
    for name in dict.fromkeys(wanted):
        before, modules = set(_REGISTRY), set(sys.modules)
        mod_name = import_plugin(name)
        if mod_name not in modules and set(_REGISTRY) == before:
            # A plugin that registers nothing is a mistake (a forgotten register() call, the
            # wrong file): saying nothing would let `verify` pass while checking nothing of it.
            raise PluginError(f"plugin {name!r} registered no architecture (a plugin calls "
                              "paramcount.register(Architecture(...)) when imported)")
        loaded.append(mod_name)
        PLUGINS_LOADED.setdefault(name, None)
    return loaded


# Every plugin loaded in this process, as named (a spawned worker loads them too).
PLUGINS_LOADED: dict[str, None] = {}
