"""The text and JSON of the commands whose result is a table of rows: ``list``, ``verify`` and
``prove``'s closing tally. Each command collects its rows (:mod:`paramcount.cli`); this module
words them, so a row reads the same wherever it is printed (``report`` names a failed row as
``verify`` does, by :func:`error_line`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Checked", "ListRow", "VerifyResult", "error_line", "list_text", "prove_tally",
           "verify_json", "verify_text"]


# --- list ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ListRow:
    """One architecture as ``list`` shows it."""

    id: str
    title: str
    presets: int  # published presets and example sets
    checked_by: tuple[str, ...]
    config: bool  # a --config reader (its family's table)


def list_text(rows: Sequence[ListRow]) -> str:
    width = max(len(r.id) for r in rows)
    lines = []
    for r in rows:
        tags = [f"{r.presets} preset{'s' if r.presets != 1 else ''}"] if r.presets else []
        tags.append("checked by " + " + ".join(r.checked_by))
        if r.config:
            tags.append("--config")
        lines.append(f"{r.id:<{width}}  {r.title}  [{'; '.join(tags)}]")
    return "\n".join(lines)


# --- verify --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Checked:
    """One verification (:class:`~paramcount.analyze.verify.Verification`, or an ``ErrorRow``)
    with what ``verify`` adds to it: a Keras mismatch's residuals, and why a KerasHub figure
    that differs from its own build does."""

    row: Any
    residuals: tuple[Any, ...] | None = None  # prove's Residuals (a Keras mismatch's)
    residual_error: str | None = None  # why they were not recovered
    differs_reason: str | None = None  # the preset file's explanation, where it gives one


@dataclass(frozen=True)
class VerifyResult:
    rows: tuple[Checked, ...]
    skipped: tuple[dict, ...]  # rows not verified (no Keras build; transformers refuses the set)

    @property
    def ok(self) -> bool:
        return all(c.row.ok for c in self.rows)


def error_line(arch: str, name: str, error: str) -> str:
    return f"{'ERROR':<8} {arch:<24} {name:<28} {error}"


def skipped_line(row: dict) -> str:
    return f"{'skipped':<8} {row['arch']:<24} {row['preset']:<28} {row['reason']}"


def verify_text(result: VerifyResult) -> str:
    from paramcount.analyze.verify import ErrorRow

    lines = [skipped_line(row) for row in result.skipped]
    for c in result.rows:
        r = c.row
        if isinstance(r, ErrorRow):
            lines.append(error_line(r.arch, r.name, r.error))
            continue
        lines.append(f"{r.status:<8} {r.arch:<24} {r.name:<28} formula {r.formula:>16,}  "
                     f"{r.reference_label} {r.reference:>16,}  diff {r.difference:+,}")
        lines += [f"         - {m}" for m in r.mismatches()]
        lines += [f"         ~ residual {line}" for line in _residual_lines(c)]
        note = _keras_hub_note(c)
        if note:
            lines.append(f"         = {note}")
    rows = [c.row for c in result.rows]
    errors = sum(isinstance(r, ErrorRow) for r in rows)
    bad = sum(not r.ok for r in rows) - errors
    lines.append(f"{len(rows) - bad - errors} match, {bad} mismatch"
                 + (f", {errors} error" if errors else ""))
    return "\n".join(lines)


def verify_json(result: VerifyResult) -> list[dict]:
    return [_checked_json(c) for c in result.rows] + list(result.skipped)


def _residual_lines(c: Checked) -> list[str]:
    """For a Keras mismatch: Keras − formula per component, as exact polynomials."""
    if c.residual_error is not None:
        return [f"not recovered: {c.residual_error}"]
    return [res.text() for res in c.residuals or ()]


def _keras_hub_note(c: Checked) -> str:
    """The third figure of the three-way check, and whether a disagreement is explained."""
    r = c.row
    if getattr(r, "keras_hub_params", None) is None:
        return ""
    if r.metadata_status == "agrees":
        return f"KerasHub published {r.keras_hub_params:,} ({r.keras_hub_preset}): agrees"
    built = r.reference + r.reference_nontrainable
    why = c.differs_reason
    return (f"KerasHub published {r.keras_hub_params:,} ({r.keras_hub_preset}): differs from its "
            f"own build by {r.keras_hub_params - built:+,}; "
            + (f"explained in the preset file: {why}" if why else "UNEXPLAINED"))


def _checked_json(c: Checked) -> dict:
    from paramcount.analyze.verify import ErrorRow

    r = c.row
    out = r.to_json()
    if isinstance(r, ErrorRow):
        return out
    if r.keras_hub_params is not None:
        out["keras_hub_status"] = r.metadata_status
        out["keras_hub_differs_explained"] = (c.differs_reason
                                              if r.metadata_status == "differs" else None)
    if c.residual_error is not None:
        out["residuals"] = {"error": c.residual_error}
    elif c.residuals is not None:
        out["residuals"] = [x.to_json() for x in c.residuals]
    return out


# --- prove ---------------------------------------------------------------------------------------
def _builds_name(framework: str | None) -> str:
    return "transformers" if framework == "transformers" else "Keras"


def prove_tally(proofs: Iterable[Any], framework_of, default: str | None) -> str:
    """``prove``'s closing line: the outcomes, each proof's builds under its own reference's
    name (``framework_of(arch)``: a class only transformers builds is proven against
    transformers, with or without --framework), and the time; ``default``: the framework named
    when no build was made."""
    proofs = list(proofs)
    states = [p.status for p in proofs]
    builds = {fw: sum(p.builds for p in proofs if framework_of(p.arch) == fw)
              for fw in ("keras", "transformers")}
    tally = " and ".join(f"{n} {_builds_name(fw)} builds"
                         for fw, n in builds.items() if n) or f"0 {_builds_name(default)} builds"
    return (f"{states.count('proven')} proven, {states.count('refuted')} refuted, "
            f"{states.count('inconclusive')} inconclusive, {states.count('error')} error; "
            f"{tally}, {sum(p.seconds for p in proofs):.1f} s")
