"""One framework per process: TensorFlow and torch never share one.

A fresh machine's torch (the CUDA build, with triton) crashes in a process that has imported
TensorFlow, so paramcount keeps them apart:

- Keras references are built in the process that asks (the CLI, a verify worker, a test), never
  in a torch worker;
- torch and transformers are imported only in a *torch worker*: a process paramcount starts for
  them, which never imports TensorFlow. :func:`call` runs a function there (in this process when
  it is one), and :mod:`paramcount.analyze.parallel` runs transformers jobs in a pool of them.

Every process paramcount starts, the CLI and the test session install :func:`install_guard`: an
import of one framework in a process that holds the other raises :class:`FrameworkClash` (an
ImportError, so a library probing for an optional framework takes it as absent) and is recorded
in :data:`CLASHES`, which the test session checks after every test.

A worker is fed over a pipe and watched through its process sentinel, so one that dies (a
segfault, the OOM killer) is seen at once, with the task it was on (:class:`Worker`).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import traceback
from collections.abc import Callable, Iterable
from multiprocessing.connection import wait
from types import FrameType

__all__ = ["CLASHES", "SIDES", "FrameworkClash", "Worker", "WorkerDied", "begin", "call", "holds",
           "install_guard", "side"]

# The top-level modules of each framework's side.
SIDES: dict[str, tuple[str, ...]] = {
    "keras": ("tensorflow", "keras", "keras_hub", "tf_keras"),
    "torch": ("torch", "transformers", "triton", "torchvision"),
}
CLASHES: list[str] = []  # every import the guard refused in this process
_SIDE: str | None = None  # the side this process was started for (a worker), else None


class FrameworkClash(ImportError):
    """An import of one framework in a process that holds the other."""


class WorkerDied(RuntimeError):
    """A worker process ended while it held a task (a segfault, the OOM killer's SIGKILL)."""


def side() -> str | None:
    """The side this process holds: the one it was started for, else the one it imported."""
    return _SIDE or next((s for s in SIDES if holds(s)), None)


def holds(name: str) -> bool:
    return any(m in sys.modules for m in SIDES[name])


def _other(name: str) -> str:
    return "torch" if name == "keras" else "keras"


class _Guard:
    """A meta-path finder that refuses the second framework (and finds nothing itself)."""

    def find_spec(self, name, path=None, target=None):
        if _probing():  # importlib.util.find_spec: a library asking what is installed
            return None
        top = name.partition(".")[0]
        for mine, tops in SIDES.items():
            if top in tops:
                other = _other(mine)
                if other == _SIDE or (_SIDE is None and holds(other)):
                    held = sorted(m for m in SIDES[other] if m in sys.modules) or [other]
                    msg = (f"{name} imported in a process that holds {', '.join(held)}: "
                           "TensorFlow and torch never share a process (paramcount.runtime.isolate)")
                    CLASHES.append(msg)
                    raise FrameworkClash(msg, name=name)
        return None


def _probing() -> bool:
    """Whether the lookup under way is ``importlib.util.find_spec`` (torch's dynamo asks whether
    TensorFlow is installed; the CLI whether torch is), not an import."""
    frame: FrameType | None = sys._getframe(2)
    for _ in range(4):
        if frame is None:
            return False
        if frame.f_code.co_name == "find_spec" and "importlib" in frame.f_code.co_filename \
                and "util" in frame.f_code.co_filename:
            return True
        frame = frame.f_back
    return False


def install_guard() -> None:
    """Refuse, from now on in this process, an import of the framework it does not hold."""
    if not any(isinstance(f, _Guard) for f in sys.meta_path):
        sys.meta_path.insert(0, _Guard())


def call(side_name: str, fn: Callable, *args):
    """``fn(*args)`` in a process that may hold ``side_name``: this one (a torch worker for
    torch; any process but a torch worker, or one that imported torch, for Keras), else a worker
    of that side, started once and kept for this process's lifetime. ``fn`` and ``args`` must
    pickle (module-level functions, :class:`paramcount.model.weights.Named`)."""
    return begin(side_name, fn, *args)()


def begin(side_name: str, fn: Callable, *args) -> Callable[[], object]:
    """:func:`call`, started: ``fn(*args)`` goes to the worker at once and the function returned
    waits for its result (or raises its exception), so this process works meanwhile (in this
    process when it may hold ``side_name``: run at once). The worker is set aside until then:
    a :func:`call` in between starts another."""
    here = _SIDE == "torch" if side_name == "torch" else _SIDE != "torch" and not holds("torch")
    if here:
        res = fn(*args)
        return lambda: res
    w = _CALL_WORKERS.pop(side_name, None)
    if w is None or not w.alive():
        w = Worker(side_name, multiprocessing.get_context("spawn"))
    w.send(_apply, [(0, (fn, args, _switches()))])

    def result():
        results: list = []
        try:
            lost = w.finish(results.append)
        except BaseException:  # interrupted while it works: its late answer must not meet a new task
            w.proc.kill()
            raise
        if lost is not None:
            raise WorkerDied(f"the {side_name} worker process died ({lost})")
        if _CALL_WORKERS.setdefault(side_name, w) is not w:
            w.stop()  # another was started meanwhile: one is kept
        ((_, res),) = results
        if isinstance(res, Failed):
            res.reraise()
        return res

    return result


_CALL_WORKERS: dict[str, Worker] = {}


def _switches() -> dict[str, str]:
    """This process's ``PARAMCOUNT_*`` environment (``--no-cache`` sets ``PARAMCOUNT_CACHE=0``
    for one command): sent with each call, since a kept worker's own environment is the one it
    was started with."""
    return {k: v for k, v in os.environ.items() if k.startswith("PARAMCOUNT_")}


def _apply(task):
    fn, args, switches = task
    for k in [k for k in os.environ if k.startswith("PARAMCOUNT_") and k not in switches]:
        del os.environ[k]
    os.environ.update(switches)
    return fn(*args)


class Failed:
    """An exception raised by a task in a worker, carried back to the parent (a library's own
    exception type, torch's, is carried as its text: unpickling it here would import torch).
    A builtin or paramcount exception travels as itself, so a caller that decides by what went
    wrong catches its class (``paramcount.analyze.derive.probe.BuildsKeras``), never its text:
    a condition a worker's caller must act on is raised there as a paramcount exception."""

    def __init__(self, exc: BaseException) -> None:
        self.text = "".join(traceback.format_exception(exc))
        module = type(exc).__module__
        keep = module == "builtins" or module.partition(".")[0] == "paramcount"
        self.exc: BaseException | None = exc if keep else RuntimeError(
            f"{type(exc).__name__}: {exc}")
        try:
            import pickle

            pickle.loads(pickle.dumps(self.exc))
        except Exception:
            self.exc = None

    def reraise(self):
        if self.exc is not None:
            raise self.exc
        raise RuntimeError(f"a worker failed:\n{self.text}")


def death_reason(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        hint = " (the OOM killer's signal)" if name == "SIGKILL" else ""
        return f"killed by {name}{hint}"
    return f"exited with status {exitcode}"


class Worker:
    """A process of one side that runs tasks sent over a pipe, reporting each item's result.

    ``run(fn, items, done)`` sends one task (``items``: (index, item) pairs; ``fn`` None for the
    function a forked worker inherited in ``work``) and calls ``done(index, result)`` as results
    come; it returns None when the task is through, or the reason the process died, having
    reported every result that reached the pipe first (the items left are the ones it held)."""

    def __init__(self, side_name: str, ctx, work: dict | None = None) -> None:
        self.conn, child = ctx.Pipe()
        plugins: list[str] = []
        if work is None:  # spawned: it loads the plugins this process loaded (a fork has them)
            from paramcount.model import registry

            plugins = list(registry.PLUGINS_LOADED)
        self.proc = ctx.Process(target=_main, args=(child, side_name, work, os.getpid(), plugins),
                                daemon=True)
        self.proc.start()
        child.close()

    def alive(self) -> bool:
        return self.proc.is_alive()

    def send(self, fn, items: list) -> None:
        self.conn.send((fn, items))

    def receive(self, done: Callable[[int, object], None]) -> bool | str:
        """Read what is waiting: True when the task is through, the death's reason when the
        process died, False otherwise."""
        while True:
            try:
                if not self.conn.poll():
                    break
                msg = self.conn.recv()
            except (EOFError, OSError):
                break
            if msg is None:
                return True
            done(*msg)
        if not self.proc.is_alive():
            self.proc.join()
            return death_reason(self.proc.exitcode)
        return False

    def run(self, fn, items: list, done: Callable) -> str | None:
        self.send(fn, items)
        return self.finish(done)

    def finish(self, done: Callable) -> str | None:
        """Wait for the task sent (see ``run``)."""
        while True:
            wait([self.conn, self.proc.sentinel])
            state = self.receive(lambda i, r: done((i, r)))
            if state is True:
                return None
            if state:
                return str(state)

    def stop(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.conn.send(None)
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        self.conn.close()


_WORK: dict = {}


def _main(conn, side_name: str, work: dict | None, parent: int, plugins: list[str]) -> None:
    global _SIDE
    _SIDE = side_name
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent takes Ctrl-C and ends its workers
    install_guard()
    if work is not None:
        _WORK.update(work)
    if plugins:
        from paramcount.model import registry

        with contextlib.suppress(Exception):  # (a job of one that fails says so itself)
            registry.load_plugins(plugins, env=False)
    while True:
        while not conn.poll(1.0):
            if os.getppid() != parent:  # orphaned: nobody will read the results
                return
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        fn, items = task
        fn = fn or _WORK["fn"]
        for i, item in items:
            try:
                res = fn(_WORK["items"][i] if item is None else item)
            except Exception as exc:  # one failing job must not take the worker down
                res = Failed(exc)
            try:
                conn.send((i, res))
            except Exception as exc:  # a result that does not pickle
                conn.send((i, Failed(exc)))
        conn.send(None)


def run_pool(side_name: str, n: int, fn, tasks: Iterable[list[tuple[int, object]]],
             done: Callable[[int, object], None], died: Callable[[list[int], str], None],
             work: dict | None = None) -> None:
    """Run ``tasks`` (lists of (index, item)) on ``n`` workers of ``side_name``; ``died(indexes,
    reason)`` names the items a dead worker held (its task's items not yet done), and the
    pool goes on with a fresh worker. Forked with ``work`` (fn and items inherited) where
    neither framework is imported here yet, else spawned (``fn`` and items pickled)."""
    fork = work is not None and "fork" in multiprocessing.get_all_start_methods() and \
        side() is None
    ctx = multiprocessing.get_context("fork" if fork else "spawn")
    pending = list(tasks)[::-1]
    workers: list[Worker] = []
    busy: dict[Worker, set[int]] = {}
    try:
        while pending or busy:
            while pending and len(busy) < n:
                idle = [w for w in workers if w not in busy]
                w = idle[0] if idle else Worker(side_name, ctx, work if fork else None)
                if not idle:
                    workers.append(w)
                task = pending.pop()
                busy[w] = {i for i, _ in task}
                if fork:  # the worker has fn and the items already
                    w.send(None, [(i, None) for i, _ in task])
                else:
                    w.send(fn, task)
            wait([c for w in busy for c in (w.conn, w.proc.sentinel)])
            for w in list(busy):
                held = busy[w]

                def got(i, res, held=held):
                    held.discard(i)
                    done(i, res)

                state = w.receive(got)
                if state is True:
                    del busy[w]
                elif state:
                    del busy[w]
                    workers.remove(w)
                    died(sorted(held), str(state))
    finally:
        for w in workers:
            if w.alive() and w not in busy:
                w.stop()
            else:
                w.proc.kill()
                w.proc.join()
