from __future__ import annotations

import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run slow sweeps")
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite golden files (reports/conformance.md) instead of comparing")


# Files that verify through tests/_shared.py's per-process memo: with pytest-xdist (-n, the
# default in pyproject.toml) they run on one worker together, so every (architecture, preset) is
# still built once per run; every other test is spread over the workers one by one.
_SHARED_VERIFICATIONS = {"test_conformance.py", "test_report.py", "test_encoder_models.py",
                         "test_llama_family.py"}


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (--dist loadgroup)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in _SHARED_VERIFICATIONS:
            item.add_marker(pytest.mark.xdist_group("shared_verifications"))
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
