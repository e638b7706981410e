"""Verification in worker processes (paramcount.analyze.parallel): the serial run's results, in its order."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from paramcount.analyze import parallel
from paramcount.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
CALLS: list[int] = []


def square_or_fail(x: int) -> tuple[int, int]:
    if x == 3:
        raise ValueError("three")
    return x * x, os.getpid()


def test_results_keep_the_jobs_order_and_groups_share_a_worker():
    items = list(range(10))
    groups = [[9, 0], [1, 2], [4], [5, 6, 7, 8]]  # 3 is left out on purpose: never run
    out = parallel.run_grouped(square_or_fail, items, groups, jobs=2)
    assert [r[0] if r else None for r in out] == [0, 1, 4, None, 16, 25, 36, 49, 64, 81]
    for g in groups:
        assert len({out[i][1] for i in g}) == 1  # one process per group
    assert {out[i][1] for i in range(10) if out[i]} - {os.getpid()}  # and not this one


def test_a_failing_job_does_not_stop_the_others():
    seen = []
    with pytest.raises(ValueError, match="three"):
        parallel.run_grouped(square_or_fail, list(range(6)), [[i] for i in range(6)], jobs=2,
                             progress=seen.append)
    assert sorted(seen) == [str(i) for i in range(6)]  # every job ran before the error surfaced


def test_twins_are_grouped_and_big_builds_go_first():
    class A:
        def __init__(self, ref):
            self.reference, self.id = ref, ref

    jobs = [parallel.Job(A("a"), {"L": 2, "d": 1}, "x"), parallel.Job(A("a"), {"L": 2, "d": 1}, "y"),
            parallel.Job(A("b"), {"L": 96, "d": 1}, "z"), parallel.Job(A("a"), {"L": 3, "d": 1}, "w")]
    assert parallel._groups(jobs) == [[2], [3], [0, 1]]


@pytest.mark.parametrize("bad", ["0", "-1", "two"])
def test_jobs_must_be_a_positive_number(capsys, bad):
    assert main(["verify", "gpt2", "--preset", "gpt2_base_en", "-j", bad]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "positive number of processes" in err


def test_verify_in_workers_prints_what_one_process_prints(capsys, monkeypatch):
    """Two workers (a fresh command: forked from a process holding no framework yet) print
    what this process prints verifying alone, byte for byte."""
    from paramcount.cli.main import main

    env = {**os.environ, "PYTHONPATH": str(ROOT), "PARAMCOUNT_PROGRESS": "0"}
    args = ["verify", "ffnn_lm", "lstm_lm", "--quiet"]
    workers = subprocess.run([sys.executable, "-m", "paramcount", *args, "-j", "2"],
                             capture_output=True, text=True, env=env)
    monkeypatch.setenv("PARAMCOUNT_PROGRESS", "0")
    assert main([*args, "-j", "1"]) == 0
    serial = capsys.readouterr().out
    assert workers.returncode == 0, workers.stderr
    assert workers.stdout == serial and "0 mismatch" in serial


def test_a_job_reaches_a_spawned_worker_by_architecture_id():
    """Spawned workers (TensorFlow already imported here) get jobs pickled; an architecture whose
    table holds functions of the hyperparameters (Gemma 2's soft caps) travels by its id."""
    import pickle

    from paramcount.analyze import parallel
    from paramcount.model import registry

    arch = registry.get("gemma")
    hp = arch.resolve(arch.preset("tiny_gemma2").hparams)
    job = parallel.Job(arch, hp, "tiny_gemma2", framework="transformers")
    back = pickle.loads(pickle.dumps(job))
    assert back.arch is arch and back.hparams == hp and back.framework == "transformers"
