"""The report's page "Every transformers language model": every model type of transformers'
language-model auto mappings, its formula derived and proven (:mod:`paramcount.analyze.derive.sweep`).

The sweep runs in a torch worker (the report's process holds TensorFlow), each derivation and
proof cached on disk; its rows are recorded as ``derived.json`` beside the index, like
``proofs.json``, so the golden test and a machine without the transformers extra render the page
from the record, without torch."""

from __future__ import annotations

import os
from pathlib import Path

from paramcount.analyze.derive import sweep

__all__ = ["PROJECT_RECORD", "Derived", "load", "record_for", "section", "tally"]

Derived = tuple[list[sweep.Row], dict[str, str]]

# The record committed with the project's report, where paramcount runs from a checkout.
PROJECT_RECORD = Path(__file__).resolve().parents[2] / "reports" / sweep.RECORD_NAME


def load(path: str | os.PathLike = PROJECT_RECORD) -> Derived:
    """The recorded rows (none where there is no record, or one of another shape)."""
    try:
        return sweep.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return [], {}


def _sweep_here(kinds: tuple[str, ...], types: list[str] | None = None) -> Derived:
    """(In a torch worker.) Every model type swept: derived and proven, from the cache where
    it holds them."""
    return sweep.sweep(kinds, types), sweep.versions()


def _types(kinds: tuple[str, ...]) -> list[tuple[str, str]]:
    """(In a torch worker.) (kind, model type) of every language-model auto mapping."""
    return [(k, t) for k in kinds for t in sweep.model_types((k,))]


def _one(item: tuple[str, str]) -> sweep.Row:
    return sweep.one(item[1], item[0])


def _died(item: tuple[str, str], reason: str) -> sweep.Row:
    return sweep.Row(item[1], "", "error", reason=f"the worker died: {reason}", kind=item[0])


def swept(kinds: tuple[str, ...] = sweep.KINDS, n_jobs: int = 1,
          types: list[str] | None = None) -> Derived:
    """Every model type of ``kinds`` (or ``types`` of them) derived and proven, in ``n_jobs``
    torch workers."""
    from paramcount.runtime import isolate

    if n_jobs <= 1:
        return isolate.call("torch", _sweep_here, kinds, types)
    from paramcount.analyze import parallel

    items = [x for x in isolate.call("torch", _types, kinds) if types is None or x[1] in types]
    rows = parallel.run_grouped(_one, items, [[i] for i in range(len(items))], jobs=n_jobs,
                                side=lambda item: "torch", died=_died)
    return rows, isolate.call("torch", sweep.versions)


def record_for(output: str | os.PathLike, kinds: tuple[str, ...] = sweep.KINDS,
               n_jobs: int | None = 1, fresh: bool = False) -> tuple[Derived, bool]:
    """The rows a report written to ``output`` shows, and whether they were swept afresh: the
    project's record (else the one beside ``output``), as recorded, with the versions and derive
    code it was swept under; with ``fresh`` (``report --sweep``, with the transformers extra),
    unless that record is today's (every row swept under today's derive code), swept in
    ``n_jobs`` torch workers (None: one per core) — a cold sweep of every language-model type
    takes hours, so a report never starts one unasked."""
    from paramcount.runtime.extras import missing

    source = PROJECT_RECORD if PROJECT_RECORD.is_file() else Path(output).parent / \
        sweep.RECORD_NAME
    rows, vers = load(source)
    if not fresh or missing("transformers") or (
            rows and vers == sweep.versions() and all(r.derive == vers["derive"] for r in rows)):
        return (rows, vers), False
    return swept(kinds, n_jobs or os.cpu_count() or 1), True


def section(derived: Derived) -> str:
    rows, vers = derived
    if not rows:
        return ("No derive sweep is recorded here (`reports/derived.json`): `paramcount report "
                "--sweep`, with the transformers extra, sweeps every language-model type.")
    return "\n".join(sweep.section(rows, vers))


def tally(derived: Derived) -> str:
    rows, _ = derived
    if not rows:
        return "not recorded here"
    return "; ".join(sweep.tally(rows, k) for k in sweep.KINDS if any(r.kind == k for r in rows))
