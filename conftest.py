from __future__ import annotations

import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# a derivation's budget (paramcount.analyze.derive.deadline) is a user's wait, not a test's: the
# commands the tests run derive under 10 minutes, so a machine busy with the whole suite does not
# refuse a derivation that takes 60 s there (the budget's own tests give theirs: --budget 1)
os.environ.setdefault("PARAMCOUNT_BUDGET", "600")

# TensorFlow and torch never share a process (paramcount.runtime.isolate): pytest-xdist gives one worker
# test files of both kinds, so the test processes hold TensorFlow and import no torch; torch runs
# in paramcount's torch workers (verify and prove send their builds there; a test that handles
# torch objects runs its body there: tests/_shared.py's torch_side). The guard refuses the second
# framework in this process, and every test fails that made it try.
from paramcount.runtime import isolate

isolate.install_guard()


@pytest.fixture(autouse=True)
def _one_framework_per_process():
    before = len(isolate.CLASHES)
    yield
    clashes = isolate.CLASHES[before:]
    assert not clashes, f"both frameworks in one test process: {clashes[0]}"


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run slow sweeps")
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite golden files (reports/conformance.md) instead of comparing")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


# Files the default run spends longest on, started first: xdist's loadfile hands out the files with
# the most tests first, and test_report.py (few tests behind one fixture that verifies every set)
# came last, a worker's lone tail while the other sat idle; then test_derive.py (count --config
# derives and proves a model type: minutes of CPU with no proof cache) was the tail. The files
# that share verifications (tests/_shared.py's memo: built once per process) go as one unit.
FIRST = ("tests/test_report.py", "tests/test_derive.py", "tests/test_transformers.py")
TOGETHER = {"tests/test_conformance.py": "tests/test_report.py"}


def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadFileScheduling

    class HeavyFirst(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return TOGETHER.get(scope, scope)

        def _assign_work_unit(self, node) -> None:
            for scope in reversed(FIRST):
                if scope in self.workqueue:
                    self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

    if config.getoption("dist") != "loadfile":
        return None
    return HeavyFirst(config, log)
