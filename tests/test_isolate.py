"""One framework per process, and workers that die (paramcount.runtime.isolate, paramcount.analyze.parallel).

A fresh machine's torch (CUDA, with triton) segfaults in a process that imported TensorFlow, and
a worker that died used to leave ``report`` waiting forever for the task it lost."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paramcount.analyze.verify import transformers_missing
from paramcount.runtime import isolate

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PARAMCOUNT_PROGRESS": "0"}

KILLER = '''
import os, signal
from paramcount.model.components import dense
from paramcount.core.formula import group
from paramcount.model.registry import Architecture, register
from paramcount.core.symbols import d_e

def build(hp):  # dies as a segfault or the OOM killer would end it: no exception, no goodbye
    os.kill(os.getpid(), signal.SIGKILL)

register(Architecture(
    id="killer", title="a reference builder that kills its process", source="tests",
    counting="one dense layer", formula=group("killer", dense("w", d_e, d_e, match="w")),
    required=(d_e,), reference=build,
    examples={"tiny": dict(d_e=4), "small": dict(d_e=8)}))
'''


def _clash(first: str, second: str) -> subprocess.CompletedProcess:
    code = (f"from paramcount.runtime import isolate\nisolate.install_guard()\nimport {first}\n"
            "import importlib.util\n"
            f"assert importlib.util.find_spec({second!r}) is not None  # a probe is no import\n"
            f"try:\n    import {second}\nexcept isolate.FrameworkClash as exc:\n"
            "    print('refused:', exc, isolate.CLASHES == [str(exc)])\n"
            "else:\n    print('imported')\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV)


def test_a_process_holding_tensorflow_cannot_import_torch():
    if transformers_missing():
        pytest.skip("the transformers extra is not installed")
    out = _clash("tensorflow", "torch")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("refused: torch imported in a process that holds keras, tensorflow")
    assert out.stdout.rstrip().endswith("True")
    out = _clash("transformers", "keras")
    assert out.stdout.startswith("refused: keras imported in a process that holds")


def test_this_test_process_holds_no_torch():
    """The session's guard is installed (conftest.py), and torch went to torch workers."""
    assert any(isinstance(f, isolate._Guard) for f in sys.meta_path)
    assert not isolate.holds("torch")


def test_a_torch_worker_holds_torch_and_refuses_tensorflow():
    if transformers_missing():
        pytest.skip("the transformers extra is not installed")
    held = isolate.call("torch", _import_and_report, "torch")  # (a shared worker: maybe more)
    assert "torch" in held and "tensorflow" not in held
    with pytest.raises(isolate.FrameworkClash, match="tensorflow imported in a process"):
        isolate.call("torch", _import_and_report, "tensorflow")


def _import_and_report(name: str) -> list[str]:
    import importlib

    importlib.import_module(name)
    return sorted(m for m in ("tensorflow", "torch", "transformers") if m in sys.modules)


def _die() -> None:
    os.kill(os.getpid(), 9)


def test_a_call_whose_worker_dies_raises_at_once():
    start = time.monotonic()
    with pytest.raises(isolate.WorkerDied, match=r"keras worker process died \(killed by SIGKILL"):
        isolate._CALL_WORKERS.pop("keras", None)
        w = isolate.Worker("keras", __import__("multiprocessing").get_context("spawn"))
        isolate._CALL_WORKERS["keras"] = w
        isolate._SIDE = "torch"  # this process plays a torch worker: Keras goes to a worker
        try:
            isolate.call("keras", _die)
        finally:
            isolate._SIDE = None
    assert time.monotonic() - start < 60
    assert "keras" not in isolate._CALL_WORKERS  # the next call starts a fresh one


@pytest.fixture
def killer(tmp_path) -> str:
    path = tmp_path / "killer.py"
    path.write_text(KILLER)
    return str(path)


def _paramcount(*args: str, timeout: float = 240) -> tuple[subprocess.CompletedProcess, float]:
    start = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "paramcount", *args], capture_output=True,
                         text=True, env=ENV, timeout=timeout)
    return out, time.monotonic() - start


def _square_or_die(x: int) -> int:
    if x in (3, 7):
        os.kill(os.getpid(), 9)
    return x * x


def test_a_dead_workers_items_are_named_and_the_others_go_on():
    """Items 3 and 7 kill their worker; 4 shares 3's group (a shared build), so it was held too.
    The rest run in the surviving and fresh workers, and the pool ends at once."""
    from paramcount.analyze import parallel

    start = time.monotonic()
    out = parallel.run_grouped(_square_or_die, list(range(10)), [[3, 4], [0], [1, 2], [5, 6],
                                                                 [7], [8, 9]],
                               jobs=2, died=lambda x, why: f"died on {x}: {why}")
    assert out == [0, 1, 4, "died on 3: killed by SIGKILL (the OOM killer's signal)",
                   "died on 4: killed by SIGKILL (the OOM killer's signal)", 25, 36,
                   "died on 7: killed by SIGKILL (the OOM killer's signal)", 64, 81]
    with pytest.raises(isolate.WorkerDied, match=r"died \(killed by SIGKILL.*\) while on: 3"):
        parallel.run_grouped(_square_or_die, [0, 3], [[0], [1]], jobs=2)
    assert time.monotonic() - start < 30


def test_verify_names_the_job_whose_worker_died(killer):
    out, seconds = _paramcount("--plugin", killer, "verify", "killer", "-j", "2", "--quiet")
    assert out.returncode == 1, out.stderr
    rows = [line.split()[:3] for line in out.stdout.splitlines() if line.startswith("ERROR")]
    assert sorted(rows) == [["ERROR", "killer", "small"], ["ERROR", "killer", "tiny"]]
    assert "the worker process verifying it against keras died (killed by SIGKILL" in out.stdout
    assert out.stdout.rstrip().endswith("0 match, 0 mismatch, 2 error")
    assert seconds < 120  # (TensorFlow's import, on a busy machine: no wait for a lost task)


def test_prove_names_the_architecture_whose_worker_died(killer):
    # --no-record: both proven here, in two workers (read from the record, ffnn_lm would leave
    # killer the one proof, which run_grouped runs in this process: no worker to die)
    out, _ = _paramcount("--plugin", killer, "prove", "killer", "ffnn_lm", "-j", "2",
                         "--quiet", "--no-record")
    assert out.returncode == 1, out.stderr
    assert "killer: ERROR" in out.stdout.replace("error", "ERROR"), out.stdout
    assert "worker process died" in out.stdout and "killed by SIGKILL" in out.stdout
    assert "ffnn_lm: PROVEN" in out.stdout and "1 error" in out.stdout


def test_report_names_the_set_whose_worker_died_and_writes_nothing(killer, tmp_path, capsys,
                                                                   monkeypatch):
    """The report's verifications run as verify's do; a dead worker's sets are ERROR rows, the
    report is not written (it would lack them), and the exit status is 1."""
    from paramcount.cli.main import main
    from paramcount.model import registry
    from paramcount.output import report

    # loaded for this test only: the registry and the plugin list are restored after it
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "PLUGINS_LOADED", {})
    before = set(sys.modules)
    registry.load_plugins([killer], env=False)
    for name in set(sys.modules) - before:
        monkeypatch.delitem(sys.modules, name)  # (removed now, the registry copy holds it)
    real = report.verify_all
    monkeypatch.setattr(report, "verify_all",
                        lambda **kw: real(["killer"], progress=kw.get("progress"), n_jobs=2))
    target = tmp_path / "r.md"
    assert main(["report", "--output", str(target), "--quiet", "-j", "2"]) == 1
    out = capsys.readouterr().out
    assert sorted(line.split()[:3] for line in out.splitlines() if line.startswith("ERROR")) \
        == [["ERROR", "killer", "small"], ["ERROR", "killer", "tiny"]]
    assert "2 error" in out and "not written" in out and not target.exists()


def test_begin_returns_at_once_and_a_call_meanwhile_takes_another_worker():
    """isolate.begin: the task goes to the worker and this process goes on; the worker is set
    aside until its result is read, so a call in between is answered by another one, and one
    worker is kept afterwards."""
    first = isolate.call("torch", os.getpid)
    result = isolate.begin("torch", time.sleep, 0.5)
    meanwhile = isolate.call("torch", os.getpid)
    assert meanwhile != first and result() is None
    assert isolate.call("torch", os.getpid) == meanwhile
    late = isolate.begin("torch", divmod, 1, 0)
    with pytest.raises(ZeroDivisionError):
        late()


def _cache_switched_on() -> bool:
    from paramcount.runtime import cache_store

    return cache_store.enabled()


def test_a_kept_worker_honours_no_cache_set_after_it_started():
    """A worker is kept for the process's lifetime, so `--no-cache` (an environment switch) must
    reach one started before it: a derived count once read a derivation cached by an earlier
    test's call in the same warm worker, and `count --budget 1 --no-cache` answered at once."""
    from paramcount.cli.common import no_cache

    assert isolate.call("torch", _cache_switched_on) is True  # the worker, started with the cache on
    with no_cache(True):
        assert isolate.call("torch", _cache_switched_on) is False
    assert isolate.call("torch", _cache_switched_on) is True
