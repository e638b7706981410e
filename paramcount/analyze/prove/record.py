"""Proof outcomes recorded beside the report (``reports/proofs.json``).

The report's *Proofs* section proves every architecture, and a proof costs Keras builds (minutes
for some families). :func:`paramcount.runtime.cache.proof_key` already names everything a proof depends
on: the formula tree, the hyperparameters' roles and constraints, the reference builder's source,
the library versions and the prover's own source. ``paramcount report`` writes, beside the
report, each architecture's key with the outcome the report shows; the next report (and the
golden test of a fresh checkout) reuses an outcome whose key still matches, and proves anew every
architecture whose key changed. So a changed formula, builder, library or prover is always
proven again, and an unchanged one never is, whichever machine generates the report.

The record holds what the section prints (JSON: statuses, bounds, methods, residual texts),
not pickled objects, so it is reviewable in a diff like the report itself. The proofs against
transformers (formula + deltas ≡ the PyTorch model) are recorded the same way, under
``"transformers"``, keyed by the transformers view's own key (its builder, torch's and
transformers' versions).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from paramcount.analyze.prove.results import ArchProof, CaseProof

__all__ = ["COSTS", "FRAMEWORK_KEYS", "PROJECT_RECORD", "RECORD_NAME", "dumps", "key", "load",
           "proofs_for", "prove_against", "recorded", "stale"]

RECORD_NAME = "proofs.json"
# The record committed with the project's report, where paramcount runs from a checkout.
PROJECT_RECORD = Path(__file__).resolve().parents[3] / "reports" / RECORD_NAME
MAX_RECORD_BYTES = 256 << 20  # the project's record of every architecture takes about 1 MB
FORMAT = 1
# Where each framework's outcomes sit in the file; the cost quantities' proofs
# (paramcount.analyze.costs: forward FLOPs and KV cache ≡ transformers' measurement) beside them.
FRAMEWORK_KEYS = {"keras": "architectures", "transformers": "transformers", "flops": "flops",
                  "kv": "kv"}
COSTS = ("flops", "kv")


@dataclass(frozen=True)
class RecordedResidual:
    """A residual as the record keeps it: its text."""

    line: str

    def text(self) -> str:
        return self.line


def _entry(proof: ArchProof, key: str) -> dict:
    return {"key": key, "cases": [
        {"case": c.case, "status": c.status, "free": list(c.free),
         "parametrization": list(c.parametrization),
         # (pairs, not objects: the section prints them in the prover's order)
         "bounds": [[k, v] for k, v in c.bounds.items()],
         "structural": [[k, list(v)] for k, v in c.structural.items()],
         "ranges": [[k, list(v)] for k, v in c.ranges.items()],
         "points_per_node": c.points_per_node, "error_bound": c.error_bound,
         "builds": c.builds, "residuals": [r.text() for r in c.residuals],
         "message": c.message}
        for c in proof.cases]}


def _proof(arch_id: str, entry: Mapping) -> ArchProof:
    return ArchProof(arch_id, tuple(
        CaseProof(arch_id, c["case"], c["status"], tuple(c["free"]), tuple(c["parametrization"]),
                  {k: v for k, v in c["bounds"]}, {k: tuple(v) for k, v in c["structural"]},
                  {k: (v[0], v[1]) for k, v in c["ranges"]}, c["points_per_node"],
                  c["error_bound"], c["builds"], 0.0,
                  tuple(RecordedResidual(t) for t in c["residuals"]),  # type: ignore[misc]
                  c["message"])
        for c in entry["cases"]))


def load(path: str | Path | None, framework: str = "keras") -> dict:
    """The record of ``framework``'s proofs at ``path`` (empty when absent, unreadable or of
    another format)."""
    if path is None:
        return {}
    from paramcount.core.errors import InputFileError
    from paramcount.runtime import inputs

    try:  # the bounded reader every JSON a user hands paramcount goes through (--proofs FILE)
        data = inputs.load_json(path, "proof record", MAX_RECORD_BYTES)
    except InputFileError:
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return {}
    archs = data.get(FRAMEWORK_KEYS[framework])
    return archs if isinstance(archs, dict) else {}


def key(arch_id: str, framework: str = "keras") -> str:
    """The key of ``arch_id``'s proof against ``framework`` (:func:`paramcount.runtime.cache.proof_key`;
    against transformers, of each transformers class it has, joined)."""
    from paramcount.model import registry
    from paramcount.runtime.cache import proof_key

    arch = registry.get(arch_id)
    if framework == "keras":
        return proof_key(arch)
    if framework in COSTS:
        from paramcount.analyze import costs

        return proof_key(costs.quantity_arch(arch, framework))
    from paramcount.analyze.prove import transformers

    if arch.transformers is None:
        from paramcount.core.errors import ParamcountError

        raise ParamcountError(f"{arch_id} has no transformers reference")
    return transformers.key(arch)


def prove_against(arch_id: str, framework: str = "keras") -> ArchProof:
    """``arch_id`` proven against ``framework``: formula ≡ Keras, or formula + deltas ≡
    transformers for every transformers class it has (outcomes cached on disk either way)."""
    from paramcount.analyze.prove import cached_prove

    if framework == "keras":
        return cached_prove(arch_id)
    from paramcount.analyze.prove import transformers
    from paramcount.analyze.verify import require_transformers
    from paramcount.model import registry

    require_transformers()
    if framework in COSTS:
        from paramcount.analyze import costs

        return costs.proof(registry.get(arch_id), framework)
    return transformers.prove(registry.get(arch_id))


def proofs_for(arch_ids: Iterable[str], path: str | Path | None = None, *,
               progress=None, framework: str = "keras",
               prover: Callable[[list[str]], list[ArchProof]] | None = None
               ) -> tuple[list[ArchProof], dict]:
    """The proofs of ``arch_ids`` against ``framework`` (recorded ones whose key matches, the
    others proven now: by ``prover``, given the ids, e.g. in worker processes; else here, one
    by one), and the record to write beside the report they go into."""
    old = load(path, framework)
    found: dict[str, ArchProof | None] = {}
    digests = {}
    for aid in sorted(arch_ids):
        digests[aid] = digest = key(aid, framework)
        entry = old.get(aid)
        found[aid] = None
        if isinstance(entry, dict) and entry.get("key") == digest:
            with contextlib.suppress(KeyError, TypeError, ValueError, IndexError):
                found[aid] = _proof(aid, entry)  # (a damaged entry: proven anew)
    todo = [a for a, p in found.items() if p is None]
    if prover is not None and todo:
        found.update(zip(todo, prover(todo), strict=True))
    proofs, new = [], {}
    for aid, proof in found.items():
        if proof is None:
            if progress:
                progress(f"{aid}: proving" + ("" if framework == "keras" else f" ({framework})"))
            proof = prove_against(aid, framework)
        proofs.append(proof)
        if proof.status != "error":  # an error may be the environment's: never recorded
            new[aid] = _entry(proof, digests[aid])
    return proofs, new


def recorded(arch_id: str, framework: str, path: str | Path | None) -> tuple[str, str]:
    """What the record at ``path`` says of ``arch_id``'s proof against ``framework`` (or of one
    of its cost quantities): ("proven", ""), (its status, the first unproven case's message),
    or ("not proven", why) where no outcome is recorded under the current key (a changed
    formula or source, or no record)."""
    entry = load(path, framework).get(arch_id) if path else None
    if not isinstance(entry, dict):
        return "not proven", "no proof recorded (paramcount report proves it)"
    if entry.get("key") != key(arch_id, framework):
        return "not proven", "the recorded proof is of another formula or source"
    cases = [c for c in entry.get("cases", []) if isinstance(c, dict)]
    bad = next((c for c in cases if c.get("status") != "proven"), None)
    if cases and bad is None:
        return "proven", ""
    return str((bad or {}).get("status", "not proven")), str((bad or {}).get("message", ""))


def stale(arch_ids: Iterable[str], path: str | Path | None, framework: str = "keras") -> list[str]:
    """Those of ``arch_ids`` whose recorded outcome at ``path`` is missing or keyed otherwise."""
    old = load(path, framework)
    return [a for a in sorted(arch_ids)
            if not (isinstance(old.get(a), dict) and old[a].get("key") == key(a, framework))]


def dumps(record: Mapping, transformers: Mapping | None = None,
          costs: Mapping[str, Mapping] | None = None) -> str:
    """The record's file text (sorted, so an unchanged record is byte-identical); ``costs``:
    each cost quantity's outcomes, by its name."""
    data: dict = {"format": FORMAT, FRAMEWORK_KEYS["keras"]: record}
    if transformers is not None:
        data[FRAMEWORK_KEYS["transformers"]] = transformers
    for quantity, outcomes in (costs or {}).items():
        data[FRAMEWORK_KEYS[quantity]] = outcomes
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
