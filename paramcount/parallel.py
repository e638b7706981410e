"""Verification spread over worker processes (``verify -j N``, ``report -j N``).

A verification is CPU-bound Python (Keras building layers), so threads would not help; processes
do. Each worker imports TensorFlow once, on its first build, and keeps its per-process build
memo (:func:`paramcount.verify.reference_weights`): hyperparameter sets that share a build (a
preset and its fine-tuned twins) are sent to the same worker as one task, so each is still built
once. Results come back in any order and are put back in the jobs' order, so the output is the
same as a serial run's, byte for byte.

Workers are forked where the platform allows and TensorFlow is not yet imported here (forking a
process that runs TensorFlow's threads is unsafe): they then inherit the jobs, architectures of
user plugins included, at no import or pickling cost. Otherwise they are spawned and receive the
jobs pickled (an architecture's builder must then be importable by name, as built-in ones are).

A job that raises does not stop the others: the exception travels back as a value and is raised
here, in job order, after every job ran (or returned as the job's result, if verify chose to
return an error row instead of raising).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # the workers import these lazily; the types alone cost nothing
    from paramcount.registry import Architecture, Preset

__all__ = ["Job", "default_jobs", "run_grouped", "verify_jobs"]

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
    from paramcount import registry

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


# --- the worker side -----------------------------------------------------------------------------
_WORK: dict = {}


class _Failed:
    """An exception raised by one job, carried back to the parent."""

    def __init__(self, exc: BaseException) -> None:
        self.text = "".join(traceback.format_exception(exc))
        try:
            import pickle

            pickle.dumps(exc)
            self.exc: BaseException | None = exc
        except Exception:
            self.exc = None

    def reraise(self):
        if self.exc is not None:
            raise self.exc
        raise RuntimeError(f"a worker failed:\n{self.text}")


def _init(work: dict | None) -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if work is not None:
        _WORK.update(work)


def _run_group(args):
    fn, indexes, payload = args
    fn = fn or _WORK["fn"]
    items = payload if payload is not None else [_WORK["items"][i] for i in indexes]
    out = []
    for i, item in zip(indexes, items, strict=True):
        try:
            out.append((i, fn(item)))
        except Exception as exc:  # one failing build must not take the pool down
            out.append((i, _Failed(exc)))
    return out


def run_grouped(fn: Callable[[_Item], object], items: Sequence[_Item], groups: list[list[int]], *,
                jobs: int, progress: Callable[[str], None] | None = None,
                label: Callable[[_Item], str] = str) -> list:
    """``[fn(item) for item in items]``, the groups' items together on one worker each, in
    ``jobs`` processes (in this one when ``jobs`` is 1 or there is one group)."""
    results: list = [None] * len(items)
    if jobs <= 1 or len(groups) <= 1:
        for g in groups:
            for i in g:
                if progress:
                    progress(label(items[i]))
                try:
                    results[i] = fn(items[i])
                except Exception as exc:
                    results[i] = _Failed(exc)
    else:
        fork = "fork" in multiprocessing.get_all_start_methods() and "tensorflow" not in sys.modules
        ctx = multiprocessing.get_context("fork" if fork else "spawn")
        tasks: list[tuple[Callable | None, list[int], list | None]]
        if fork:
            init_args: tuple = ({"fn": fn, "items": items},)
            tasks = [(None, g, None) for g in groups]
        else:
            init_args = (None,)
            tasks = [(fn, g, [items[i] for i in g]) for g in groups]
        with ctx.Pool(min(jobs, len(groups)), initializer=_init, initargs=init_args) as pool:
            for done in pool.imap_unordered(_run_group, tasks, chunksize=1):
                for i, res in done:
                    results[i] = res
                    if progress:
                        progress(label(items[i]))
            pool.close()  # a clean shutdown: terminate() (the with's exit) leaks semaphores
            pool.join()
    for res in results:
        if isinstance(res, _Failed):
            res.reraise()
    return results


def _verify_job(job: Job):
    from paramcount import registry
    from paramcount.errors import ParamcountError
    from paramcount.verify import ErrorRow, verify

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
    """Verify every job, in ``n_jobs`` worker processes (default: :func:`default_jobs`); the
    results in the jobs' order."""
    n = default_jobs() if n_jobs is None else n_jobs
    return run_grouped(_verify_job, list(jobs), _groups(jobs), jobs=n, progress=progress,
                       label=lambda j: j.label())


def _prove_one(item: tuple[str, str]) -> str:
    from paramcount.prove.record import prove_against

    arch_id, framework = item
    return prove_against(arch_id, framework).status


def prove_into_cache(arch_ids: Sequence[str], *, n_jobs: int | None = None,
                     framework: str = "keras") -> None:
    """Prove architectures (against ``framework``) in worker processes so that their outcomes
    land in the on-disk proof cache, where the report's serial pass then finds them (a no-op with
    the cache off, or in one process: the report proves them itself)."""
    from paramcount import cache

    n = default_jobs() if n_jobs is None else n_jobs
    if n <= 1 or not cache.enabled() or len(arch_ids) <= 1 or "tensorflow" in sys.modules:
        # (With TensorFlow loaded here, workers could not be forked: spawned ones would import
        # it again and not see user plugins' architectures; the serial pass proves them.)
        return
    run_grouped(_prove_one, [(a, framework) for a in arch_ids],
                [[i] for i in range(len(arch_ids))], jobs=n)
