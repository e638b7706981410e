from __future__ import annotations

import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


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
