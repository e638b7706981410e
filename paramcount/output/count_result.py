"""What the full ``count`` command prints around a count, and what a config file was read as.

``count`` collects one :class:`CountResult` (the count, the reading of ``--config``, the
framework's deltas, which references check it) and this module renders it as text or JSON
(collect, then format: the command words no line itself). ``verify --config`` and
``--checkpoint`` print a config's reading by the same :func:`reading_lines`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paramcount.output.count_output import count_json, count_text

if TYPE_CHECKING:
    from paramcount.analyze.cost_result import Costs
    from paramcount.analyze.counting import Counted
    from paramcount.model.mapping import Reading
    from paramcount.model.quantization import Stored

__all__ = ["CountResult", "DeltaRow", "count_result_json", "count_result_text", "delta_lines",
           "reading_json", "reading_lines"]


@dataclass(frozen=True)
class DeltaRow:
    """One declared delta of a transformers count: its path, the Keras and transformers counts
    there, and why they differ."""

    path: str
    keras: int
    hf: int
    reason: str


@dataclass(frozen=True)
class CountResult:
    """Everything ``count`` shows (the ``--derived`` comparison aside, which a torch worker
    computes and :mod:`paramcount.output.derive_output` renders)."""

    counted: Counted  # the count itself, at the resolved hyperparameters
    checked_by: tuple[str, ...]  # the references the formula is checked against
    framework: str = "keras"  # the build counted: keras, or transformers with its deltas
    reading: Reading | None = None  # what --config was read as
    stored: Stored | None = None  # the stored size the reading's quantization_config implies
    hf_class: str | None = None  # the transformers class (framework transformers)
    deltas: tuple[DeltaRow, ...] = ()  # (framework transformers)
    only: str | None = None  # why no Keras build checks it, where none does
    derived: dict | None = None  # count --derived --json: the comparison, as JSON
    costs: Costs | None = None  # count --context: memory and compute
    notes: tuple[str, ...] = ()  # what a forward pass needs that the counted set breaks


def count_result_text(r: CountResult) -> str:
    lines = []
    if r.reading is not None:
        lines += reading_lines(r.reading, r.stored)
    if r.framework != "keras":
        lines.append(f"counted as transformers builds it: {r.hf_class} "
                     "(the formula with its declared deltas; torch not imported)")
    lines.append(count_text(r.counted))
    lines += [f"note: {n}" for n in r.notes]
    if "keras" not in r.checked_by:  # a model KerasHub cannot build (Falcon-7B)
        lines.append(f"checked by {' and '.join(r.checked_by)} only: {r.only}")
    if r.framework != "keras":
        lines += delta_lines(r.deltas, "Keras" if "keras" in r.checked_by else "the formula")
    if r.costs is not None:
        from paramcount.output.cost_output import cost_lines

        lines += cost_lines(r.costs)
    return "\n".join(lines)


def count_result_json(r: CountResult) -> dict:
    out = count_json(r.counted)
    if r.reading is not None:
        out["config"] = reading_json(r.reading, r.stored, quantization=True)
    out["checked_by"] = list(r.checked_by)
    if r.notes:
        out["notes"] = list(r.notes)
    if r.framework != "keras":
        out["framework"] = r.framework
        out["deltas"] = [{"path": d.path, "keras": d.keras, r.framework: d.hf, "reason": d.reason}
                         for d in r.deltas]
    if r.derived is not None:
        out["derived"] = r.derived
    if r.costs is not None:
        from paramcount.output.cost_output import cost_json

        out["costs"] = cost_json(r.costs)
    return out


def delta_lines(rows: tuple[DeltaRow, ...], against: str = "Keras") -> list[str]:
    """``count --framework transformers``: what differs from the Keras build, and why; for a
    model KerasHub cannot build, from the formula (``against``)."""
    if not rows:
        return [f"no deltas: transformers builds the weights {against} "
                + ("builds" if against == "Keras" else "counts")]
    out = [f"deltas (transformers − {against}):"]
    for d in rows:
        out.append(f"  {d.path:<42}{d.hf - d.keras:>+18,}  ({d.keras:,} → {d.hf:,}): {d.reason}")
    return out


# --- a config file's reading --------------------------------------------------------------------
def reading_lines(reading: Reading, stored: Stored | None = None) -> list[str]:
    """What a config file was read as; with ``stored`` (the count's), the stored size its
    quantization_config implies."""
    hp = ", ".join(f"{k}={v}" for k, v in reading.hparams.items())
    lines = [f"read {reading.where} ({reading.source}, {reading.cls}) as {reading.arch}: {hp}"]
    if getattr(reading, "via", ""):  # another model type, read with a family's table
        lines.append(f"read as {reading.arch}'s table: {reading.via}")
    if getattr(reading, "defaulted", ()):  # keys left out: the config class's own defaults
        lines.append("keys the file leaves out, at its config class's defaults (as transformers "
                     "builds it): " + ", ".join(f"{k}={json.dumps(v)}" for k, v in reading.defaulted))
    if getattr(reading, "reread", ()):  # values the class builds otherwise than they read
        lines.append("keys read as transformers builds them: " + ", ".join(
            f"{k}={json.dumps(given)} as {json.dumps(read)}" for k, given, read in reading.reread))
    if reading.ignored:
        # only the keys nothing declares: one the table (or every config) declares to change
        # no count, rope_theta or a dropout, is not read either, and not listed
        lines.append(f"keys not read (unknown to the {reading.arch} table): "
                     f"{', '.join(reading.ignored)}")
    q = _quantization(reading, stored)
    if q is not None:
        lines.append(f"quantization_config declares {q['declared']}: the count is of parameters, "
                     "not of the bits they are stored in")
        lines.append(q.get("stored_text") or "its stored size: not known to paramcount (no bits "
                                               "per weight declared)")
    return lines


def reading_json(reading: Reading, stored: Stored | None = None, *,
                 quantization: bool = False) -> dict:
    """The reading as JSON; ``quantization``: with what its quantization_config declares (count's
    ``config``; a checkpoint's leaves it out)."""
    out = {"file": reading.where, "source": reading.source, "class": reading.cls,
           "read": reading.hparams, "ignored": list(reading.ignored)}
    if getattr(reading, "via", ""):
        out["via"] = reading.via
    if getattr(reading, "defaulted", ()):
        out["defaulted"] = dict(reading.defaulted)
    if getattr(reading, "reread", ()):
        out["reread"] = {k: {"file": given, "read": read} for k, given, read in reading.reread}
    q = _quantization(reading, stored) if quantization else None
    if q is not None:
        out["quantization"] = q
    return out


def _quantization(reading: Reading, stored: Stored | None) -> dict | None:
    decl = getattr(reading, "quantization", None)
    if decl is None:
        return None
    out: dict = {"declared": decl.text, "method": decl.method, "bits": decl.bits,
                 "group": decl.group}
    if stored is not None:
        out.update(stored_bytes=stored.bytes, stored_estimate=True, stored_text=stored.text)
    return out
