"""One way to restrict a hyperparameter: a declared list of :class:`Restriction` rows.

A family says in one list what its formula assumes about the hyperparameters and the
frameworks' configurations, each row naming *what* it restricts (its kind: the subclass), *which*
framework or step it binds (``binds``) and *why* (a sentence). The architecture, its mapping table
and its transformers declaration each take the same list (``restrictions=``) and keep the rows
that bind them; the attributes the rest of paramcount reads are derived from it:

============  ================  =============================================================
kind          binds             derived attribute (what it does)
============  ================  =============================================================
Fixed         all               ``Architecture.fixed``: a value the reference imposes
Fixed         transformers      ``Transformers.always``: an option the class cannot switch
Holds         all               ``Architecture.constraints``: checked on every set
Holds         transformers      ``Transformers.constraints``: its config validation refuses
Holds         proof             ``Transformers.prove_within``: ``prove`` samples inside only
Holds         forward           ``Architecture.notes``: a forward pass needs it, no build does:
                                ``count`` prints a note beside a count that breaks it (no
                                refusal), ``prove`` samples inside
Limit         transformers      ``Transformers.limits``: transformers builds another model
Requires      keras, trans...   ``Table.requires``: a config value the formula needs
Sets          keras, trans...   ``Table.keras_constants`` / ``hf_constants``: always written
============  ================  =============================================================

An attribute given explicitly (``Architecture(fixed=...)``, or a value built by code, as
:func:`paramcount.model.frameworks.for_framework` builds transformers' view) replaces what the
restrictions derive for it; ``dataclasses.replace`` of an object keeps deriving from its list
(derived values carry a marker type, :class:`Derived` / :class:`DerivedMap`). Nothing here imports
SymPy or another module of paramcount.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

__all__ = ["BINDS", "Derived", "DerivedMap", "Fixed", "Holds", "Limit", "Requires", "Restriction",
           "Sets", "architecture", "broken_notes", "derived", "like", "select", "table", "transformers"]

BINDS = ("all", "keras", "transformers", "proof", "forward")


@dataclass(frozen=True)
class Restriction:
    """One restriction: its kind is its class; ``binds`` one of :data:`BINDS`; ``why`` a sentence
    (for a :class:`Holds` or :class:`Limit` row given none, its constraint's ``reason``)."""

    binds: str = field(default="all", kw_only=True)
    why: str = field(default="", kw_only=True)
    # The binds this kind accepts (a class attribute, not a field).
    bindable: ClassVar[tuple[str, ...]] = ("all",)

    def __post_init__(self) -> None:
        if self.binds not in self.bindable:
            raise ValueError(f"{type(self).__name__} binds one of {', '.join(self.bindable)}, "
                             f"not {self.binds!r}")
        # A constraint that states its own reason (Relation/Divisible ``reason=``) gives the why.
        reason = getattr(getattr(self, "constraint", None), "reason", None)
        if not self.why and isinstance(reason, str) and reason:
            object.__setattr__(self, "why", reason)


@dataclass(frozen=True)
class Fixed(Restriction):
    """``symbol`` is ``value`` (an expression in other symbols, or an int)."""

    symbol: Any
    value: Any
    bindable: ClassVar[tuple[str, ...]] = ("all", "transformers")

    @classmethod
    def each(cls, values, binds: str = "all", why: str = "") -> tuple[Fixed, ...]:
        """Rows from a mapping symbol → value (each saying ``why``), or from
        :class:`paramcount.model.frameworks.Always` rows (binding transformers, their reason the why)."""
        if isinstance(values, Mapping):
            return tuple(cls(k, x, binds=binds, why=why) for k, x in values.items())
        return tuple(cls(a.symbol, a.value, binds="transformers", why=a.reason) for a in values)


@dataclass(frozen=True)
class Holds(Restriction):
    """``constraint`` (a :class:`paramcount.core.hparams.Constraint`) holds."""

    constraint: Any
    bindable: ClassVar[tuple[str, ...]] = ("all", "transformers", "proof", "forward")

    @classmethod
    def each(cls, constraints: Iterable, binds: str = "all", why: str = "") -> tuple[Holds, ...]:
        """A row per constraint (a lineage's shared tuple of them), each saying ``why``."""
        return tuple(cls(c, binds=binds, why=why) for c in constraints)


@dataclass(frozen=True)
class Limit(Restriction):
    """Outside ``constraint`` transformers silently builds another model (no validation refuses
    it): verify skips such sets and ``prove`` samples inside."""

    constraint: Any
    binds: str = field(default="transformers", kw_only=True)
    bindable: ClassVar[tuple[str, ...]] = ("transformers",)

    @classmethod
    def each(cls, constraints: Iterable, why: str = "") -> tuple[Limit, ...]:
        return tuple(cls(c, why=why) for c in constraints)


@dataclass(frozen=True)
class Requires(Restriction):
    """A framework's config must hold one of ``allowed`` at ``key`` (absent or null is fine
    when ``absent_ok``); ``classes``: the transformers classes it concerns (empty: all)."""

    key: str
    allowed: tuple
    absent_ok: bool = True
    classes: tuple[str, ...] = ()
    binds: str = field(default="transformers", kw_only=True)
    bindable: ClassVar[tuple[str, ...]] = ("keras", "transformers")

    @classmethod
    def each(cls, requires: Iterable) -> tuple[Requires, ...]:
        """Rows from :class:`paramcount.model.mapping.Require` rows (a lineage's shared ones)."""
        return tuple(cls(r.key, r.allowed, r.absent_ok, tuple(r.classes), why=r.reason,
                         binds="keras" if r.framework == "keras" else "transformers") for r in requires)


@dataclass(frozen=True)
class Sets(Restriction):
    """The reference always writes ``value`` at ``key`` of the framework's config (or constructor
    arguments); ``value`` may be a function of the resolved hyperparameters."""

    key: str
    value: Any
    binds: str = field(default="transformers", kw_only=True)
    bindable: ClassVar[tuple[str, ...]] = ("keras", "transformers")

    @classmethod
    def each(cls, constants: Mapping, binds: str = "transformers", why: str = "") -> tuple[Sets, ...]:
        """Rows from a mapping key → value (a lineage's shared constants), each saying ``why``."""
        return tuple(cls(k, x, binds=binds, why=why) for k, x in constants.items())


class Derived(tuple):
    """A tuple derived from restrictions (derived again when its object is replaced)."""


class DerivedMap(dict):
    """A mapping derived from restrictions (derived again when its object is replaced)."""


def select(restrictions: Iterable[Restriction], kind: type[Restriction], binds: str) -> list:
    """The rows of ``kind`` binding ``binds``, in declared order."""
    return [r for r in restrictions if type(r) is kind and r.binds == binds]


def derived(given, computed):
    """The attribute's value: ``given`` where code gave it, else ``computed`` (a tuple or a mapping)
    marked as derived."""
    if isinstance(given, (Derived, DerivedMap)):
        return DerivedMap(computed) if isinstance(computed, Mapping) else Derived(computed)
    return given


def like(old, new: dict) -> dict:
    """``new`` as derived where ``old`` was (a derived mapping rewritten, as SymPy's)."""
    return DerivedMap(new) if isinstance(old, DerivedMap) else new


def architecture(arch) -> dict[str, Any]:
    """An architecture's ``fixed`` and ``constraints``, from its ``restrictions`` (binding all),
    and its ``notes`` (the :class:`Holds` rows binding forward, each with its why)."""
    rows = arch.restrictions
    return {"fixed": derived(arch.fixed, {r.symbol: r.value for r in select(rows, Fixed, "all")}),
            "constraints": derived(arch.constraints, tuple(r.constraint for r in select(rows, Holds, "all"))),
            "notes": derived(arch.notes, tuple(select(rows, Holds, "forward")))}


def broken_notes(rows: Iterable[Holds], values: Mapping) -> list[str]:
    """The notes (:class:`Holds` rows binding forward) that ``values`` (symbol → int) break, one
    line each: the count stands (every build makes these weights), the note says what a forward
    pass needs besides."""
    out = []
    for row in rows:
        problem = row.constraint.check(values)
        if problem:
            broken = problem.split("; allowed")[0].replace(" must be ", " is not ", 1)
            out.append(f"{broken}: {row.why}" if row.why else broken)
    return out


def table(tab, require: type) -> dict[str, Any]:
    """A mapping table's ``requires`` (``require``: :class:`paramcount.model.mapping.Require`, its
    ``framework`` "hf" for transformers), ``hf_constants`` and ``keras_constants``."""
    rows = tab.restrictions
    reqs = tuple(require(r.key, r.allowed, r.why, "keras" if r.binds == "keras" else "hf", r.absent_ok,
                         r.classes) for r in rows if type(r) is Requires)
    return {"requires": derived(tab.requires, reqs),
            "hf_constants": derived(tab.hf_constants, {r.key: r.value for r in select(rows, Sets, "transformers")}),
            "keras_constants": derived(tab.keras_constants, {r.key: r.value for r in select(rows, Sets, "keras")})}


def transformers(ref, always: type) -> dict[str, Any]:
    """A transformers declaration's ``constraints``, ``limits``, ``always`` (``always``:
    :class:`paramcount.model.frameworks.Always`) and ``prove_within``."""
    rows = ref.restrictions
    return {"constraints": derived(ref.constraints, tuple(r.constraint for r in select(rows, Holds, "transformers"))),
            "limits": derived(ref.limits, tuple(r.constraint for r in select(rows, Limit, "transformers"))),
            "always": derived(ref.always, tuple(always(r.symbol, r.value, r.why)
                                                for r in select(rows, Fixed, "transformers"))),
            "prove_within": derived(ref.prove_within, tuple(r.constraint for r in select(rows, Holds, "proof")))}
