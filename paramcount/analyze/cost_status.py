"""What stands behind each cost figure of an architecture: the proof record's outcome for its
current formula, or why no proof is attempted (:func:`unprovable`). One place for ``count
--context`` on either path, ``solve --memory`` and the report."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paramcount.analyze import costs

if TYPE_CHECKING:
    from paramcount.model.registry import Architecture

__all__ = ["statuses", "unprovable"]


def unprovable(arch: Architecture) -> str | None:
    """Why ``arch``'s costs are checked but not proven, or None: a router's choice depends on
    the data, so transformers' model runs for real on the CPU (not on the meta device), at sizes
    the prover's random values far exceed."""
    if arch.formula.has_active:
        return ("checked at its example sets (tests/test_costs.py), not proven: a router's choice "
                "depends on the data, so the model runs for real on the CPU, at sizes the "
                "prover's values exceed")
    return None


def statuses(arch: Architecture, record_path) -> dict[str, tuple[str, str]]:
    """Each formulated quantity's (status, why): "proven" where the record at ``record_path``
    holds a proof of its current formula, else "not proven" (or the proof's own status) and why."""
    from paramcount.analyze.prove.record import recorded

    out = {}
    for q in costs.QUANTITIES:
        if costs.formulated(arch, q) is not None:
            continue
        why = unprovable(arch)
        out[q] = ("not proven", why) if why else recorded(arch.id, q, record_path)
    return out
