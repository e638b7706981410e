"""A count evaluated: everything ``count`` shows at one resolved hyperparameter set.

A :class:`Counted` is the result; two evaluators of the same formula tree make it, sharing one
numeric core (:mod:`paramcount.core.numcore`: reading integers, checking values, filling in
defaults, deciding constraints, forming the breakdown from integers):

- :func:`counted`, through SymPy: the reference, and what every command but a plain ``count``
  uses;
- :mod:`.compiled`, the fast path of ``count``: the tree compiled once to a table of plain data
  (:mod:`.table`, kept in the on-disk cache) and evaluated with integers and Fractions, never
  importing SymPy. Tests check that both give the same :class:`Counted` for every preset, every
  example set and random sets;
- :mod:`.compiled_costs`, the same for ``count --context``: the cost trees compiled beside the
  count (:mod:`.cost_table`), the memory and compute :func:`paramcount.analyze.costs.evaluate`
  gives, from integers (tests/test_compiled_costs.py holds the two paths' output equal).

:mod:`paramcount.output.count_output` formats a :class:`Counted` (text or JSON), whichever
evaluator made it. Importing this package imports no SymPy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from paramcount.analyze.context import Context
    from paramcount.core.formula import Term
    from paramcount.model.registry import Architecture

__all__ = ["Counted", "component_label", "count_rows", "counted"]


class Counted(NamedTuple):
    """A count at one resolved hyperparameter set, everything ``count`` shows."""

    arch: str
    name: str | None
    hparams: dict[str, int]
    rows: tuple[tuple[int, str, int], ...]  # (depth, component label, count), tree order
    components: dict  # nested name -> count (leaves), as Term.breakdown
    total: int  # trainable
    nontrainable: int
    active: int | None  # per token, under a router; None without one
    context: Context


def component_label(term: Term) -> str:
    """A component's name as the breakdown shows it, with its multiplicity (``blocks × L``)."""
    from paramcount.core.formula import pretty

    if term.times == 1:
        return term.name
    times = pretty(term.times)
    return f"{term.name} × ({times})" if term.times.is_Add else f"{term.name} × {times}"


def count_rows(arch: Architecture, hparams: Mapping[str, int],
               counts: Sequence[int] | None = None) -> list[tuple[int, str, int]]:
    """(depth, label, count) per component, counts including every multiplicity above them
    (``counts``: the tree's node counts at ``hparams``, when already at hand)."""
    if counts is None:
        counts = arch.formula.node_counts(arch.values(hparams))
    return [(depth, component_label(term), counts[i])
            for i, (_, depth, term) in enumerate(arch.formula.nodes()) if depth]


def counted(arch: Architecture, hparams: Mapping[str, int], name: str | None = None) -> Counted:
    """Everything ``count`` shows, evaluated by SymPy (the reference for :mod:`.compiled`)."""
    from paramcount.analyze.context import context
    from paramcount.core import numcore

    counts = arch.formula.node_counts(arch.values(hparams))
    active = arch.count_active(hparams) if arch.formula.has_active else None
    return Counted(arch.id, name, dict(hparams), tuple(count_rows(arch, hparams, counts)),
                   numcore.nested(arch.formula.shape(), counts), arch.count(hparams),
                   arch.count_nontrainable(hparams), active, context(arch, hparams))
