"""Verification spread over worker processes (``verify -j N``, ``report -j N``).

A verification is CPU-bound Python (Keras building layers), so threads would not help; processes
do. Each worker imports TensorFlow once, on its first build, and keeps its per-process build
memo (:func:`paramcount.analyze.builds.reference_weights`): hyperparameter sets that share a build (a
preset and its fine-tuned twins) are sent to the same worker as one task, so each is still built
once. Results come back in any order and are put back in the jobs' order, so the output is the
same as a serial run's, byte for byte.

Each job runs in a worker of its side (paramcount.runtime.isolate): Keras jobs in one pool, transformers
jobs (and proofs of models only transformers builds) in a pool of torch workers, which never
import TensorFlow. Workers are forked where the platform allows and neither framework is imported
here yet (forking a process that runs TensorFlow's or torch's threads is unsafe): they then
inherit the jobs, architectures of user plugins included, at no import or pickling cost.
Otherwise they are spawned and receive the jobs pickled (an architecture's builder must then be
importable by name, as built-in ones are).

A worker that dies (a segfault, the OOM killer) is seen at once through its process sentinel:
the jobs it held come back as ERROR rows (proofs: errors) naming it, and a fresh worker takes the
rest.

A job that raises does not stop the others: the exception travels back as a value and is raised
here, in job order, after every job ran (or returned as the job's result, if verify chose to
return an error row instead of raising).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # the workers import these lazily; the types alone cost nothing
    from paramcount.model.registry import Architecture, Preset

__all__ = ["DIED", "Job", "default_jobs", "prove_jobs", "run_grouped", "verify_jobs"]

_Item = TypeVar("_Item")


@dataclass(frozen=True)
class Job:
    """One verification: an architecture at a resolved hyperparameter set."""

    arch: Architecture
    hparams: dict[str, int]
    name: str
    preset: Preset | None = None  # for KerasHub's published figure
    framework: str = "keras"  # or "transformers"

    def label(self) -> str:
        return f"{self.arch.id} {self.name}"

    def __reduce__(self):
        # A spawned worker receives the architecture by id, not pickled: tables hold functions
        # of the hyperparameters (Gemma 2's soft caps) that pickle cannot carry.
        return (_job_by_id, (self.arch.id, self.hparams, self.name, self.preset, self.framework))


def _job_by_id(arch_id: str, hparams: dict[str, int], name: str, preset: Preset | None,
               framework: str) -> Job:
    from paramcount.model import registry

    return Job(registry.get(arch_id), hparams, name, preset, framework)


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _cost(job: Job) -> int:
    # Build time grows with the number of layers; big ones first, so no worker is left with the
    # largest build at the end while the others idle.
    return sum(v for k, v in job.hparams.items() if k == "L" or k.startswith("L_")) or 1


def _groups(jobs: Sequence[Job]) -> list[list[int]]:
    by_build: dict[tuple, list[int]] = {}
    for i, job in enumerate(jobs):
        key = (repr(job.arch.reference), job.framework,
               tuple(sorted(job.hparams.items())))
        by_build.setdefault(key, []).append(i)
    return sorted(by_build.values(), key=lambda g: -_cost(jobs[g[0]]))


def job_side(job: Job) -> str:
    """The side of the process a job runs in (paramcount.runtime.isolate): torch for transformers."""
    return "torch" if job.framework == "transformers" else "keras"


def run_grouped(fn: Callable[[_Item], object], items: Sequence[_Item], groups: list[list[int]], *,
                jobs: int, progress: Callable[[str], None] | None = None,
                label: Callable[[_Item], str] = str,
                side: Callable[[_Item], str] = lambda item: "keras",
                died: Callable[[_Item, str], object] | None = None) -> list:
    """``[fn(item) for item in items]``, the groups' items together on one worker each, in
    ``jobs`` processes of each item's ``side`` (in this one when ``jobs`` is 1 or there is one
    group: a torch-side build then goes to a torch worker on its own, paramcount.runtime.isolate).

    A worker that dies (a segfault, the OOM killer) is seen at once: each item it held gets
    ``died(item, reason)`` as its result, and the others go on in a fresh worker; without
    ``died``, a :class:`paramcount.runtime.isolate.WorkerDied` naming them is raised at the end."""
    from paramcount.runtime import isolate

    results: list = [None] * len(items)
    lost: list[str] = []

    def on_death(indexes: list[int], reason: str) -> None:
        for i in indexes:
            if died is not None:
                results[i] = died(items[i], reason)
            else:
                lost.append(label(items[i]))
            if progress:
                progress(label(items[i]))
        if died is None:
            results[indexes[0]] = isolate.Failed(isolate.WorkerDied(
                f"a worker process died ({reason}) while on: {', '.join(lost)}"))

    if jobs <= 1 or len(groups) <= 1:
        for g in groups:
            for i in g:
                if progress:
                    progress(label(items[i]))
                try:
                    results[i] = fn(items[i])
                except Exception as exc:
                    results[i] = isolate.Failed(exc)
    else:
        by_side: dict[str, list[list[int]]] = {}
        for g in groups:
            by_side.setdefault(side(items[g[0]]), []).append(g)

        def done(i: int, res: object) -> None:
            results[i] = res
            if progress:
                progress(label(items[i]))

        for name, gs in sorted(by_side.items()):  # keras, then torch
            isolate.run_pool(name, min(jobs, len(gs)), fn, [[(i, items[i]) for i in g] for g in gs],
                             done, on_death, work={"fn": fn, "items": items})
    for res in results:
        if isinstance(res, isolate.Failed):
            res.reraise()
    return results


def _verify_job(job: Job):
    from paramcount.analyze.verify import ErrorRow, verify
    from paramcount.core.errors import ParamcountError
    from paramcount.model import registry

    # A spawned worker: load the module that declares the architecture's symbols. Not a
    # built-in: a spawned worker knows only what the job carries.
    with contextlib.suppress(ParamcountError):
        registry.get(job.arch.id)

    try:
        # with the preset (as published), KerasHub's figure is checked beside it
        return verify(job.arch, job.hparams, preset=job.preset,
                      name=job.name, framework=job.framework)
    except KeyboardInterrupt:
        raise
    except ParamcountError as exc:
        if job.framework == "keras" or type(exc).__name__ != "Refused":
            raise
        # transformers' own validation refuses a set Keras builds: a skipped row, not an error
        return {"arch": job.arch.id, "preset": job.name,
                "framework": job.framework, "status": "skipped", "reason": str(exc)}
    except Exception as exc:  # the reference builder raised (a plugin's, its missing module):
        return ErrorRow(job.arch.id, job.name, job.hparams, exc)  # a row; the others go on


def verify_jobs(jobs: Sequence[Job], *, n_jobs: int | None = None,
                progress: Callable[[str], None] | None = None) -> list:
    """Verify every job, in ``n_jobs`` worker processes of its side (default:
    :func:`default_jobs`); the results in the jobs' order. A job whose worker died is an
    :class:`~paramcount.analyze.verify.ErrorRow` that says so."""
    n = default_jobs() if n_jobs is None else n_jobs
    return run_grouped(_verify_job, list(jobs), _groups(jobs), jobs=n, progress=progress,
                       label=lambda j: j.label(), side=job_side, died=_died_row)


def _died_row(job: Job, reason: str):
    from paramcount.analyze.verify import ErrorRow
    from paramcount.runtime.isolate import WorkerDied

    return ErrorRow(job.arch.id, job.name, job.hparams, WorkerDied(
        f"the worker process verifying it against {job.framework} died ({reason})"))


def proof_side(item: tuple[str, str]) -> str:
    """torch for a proof against transformers (or of a cost, measured in transformers), or of a
    model only transformers builds."""
    from paramcount.model import registry

    arch_id, framework = item
    hf = framework != "keras" or "keras" not in registry.get(arch_id).checked_by
    return "torch" if hf else "keras"


def _prove_one(item: tuple[str, str]):
    from paramcount.analyze.prove.record import prove_against

    arch_id, framework = item
    return prove_against(arch_id, framework)


def _died_proof(item: tuple[str, str], reason: str):
    from paramcount.analyze.prove.results import ArchProof, CaseProof

    arch_id, framework = item
    return ArchProof(arch_id, (CaseProof(
        arch_id, "(all)", "error", (), (), {}, {}, {}, 0, 0.0, 0, 0.0,
        message=f"{DIED}: the worker process proving it against {framework} died ({reason})"),))


DIED = "worker process died"  # the message of a proof (or row) whose worker died


def prove_jobs(arch_ids: Sequence[str], *, n_jobs: int | None = None,
               framework: str = "keras", progress: Callable[[str], None] | None = None) -> list:
    """The proofs of ``arch_ids`` against ``framework`` (paramcount.analyze.prove.record.prove_against:
    on-disk cache included), in ``n_jobs`` worker processes of each proof's side; a proof whose
    worker died is an error that says so."""
    n = default_jobs() if n_jobs is None else n_jobs
    items = [(a, framework) for a in arch_ids]
    return run_grouped(_prove_one, items, [[i] for i in range(len(items))], jobs=n,
                       progress=progress, label=lambda it: f"{it[0]}: proving", side=proof_side,
                       died=_died_proof)
