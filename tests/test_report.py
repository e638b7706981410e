"""The conformance report: golden file, atomic writes (determinism: tests/test_determinism.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from paramcount import report
from tests._shared import cached_verifier

GOLDEN = Path(__file__).resolve().parent.parent / "reports" / "conformance.md"


@pytest.fixture(scope="module")
def results():
    return report.verify_all(verifier=cached_verifier)


@pytest.fixture(scope="module")
def text(results) -> str:
    return report.generate(results)


def test_golden_report(text, results, request, tmp_path):
    """reports/conformance.md and its figures are what `paramcount report` writes now
    (update: pytest --update-golden)."""
    from paramcount.plots import write_plots

    if request.config.getoption("--update-golden"):
        report.write_report(GOLDEN, text, results=results)
    assert GOLDEN.exists(), "reports/conformance.md is missing: run `paramcount report`"
    assert GOLDEN.read_text(encoding="utf-8") == text, (
        "reports/conformance.md is stale: regenerate with `paramcount report` "
        "(or pytest --update-golden) and commit it")
    for fresh in write_plots(results, tmp_path):
        committed = GOLDEN.parent / fresh.name
        assert committed.exists() and committed.read_bytes() == fresh.read_bytes(), (
            f"reports/{fresh.name} is stale: regenerate with `paramcount report`")


def test_report_states_convention_versions_and_every_architecture(text):
    from paramcount import registry

    assert "## Counting convention" in text and "Tied weights counted once" in text
    for pkg in ("TensorFlow", "Keras", "KerasHub", "SymPy"):
        assert f"| {pkg} | " in text
    for aid in registry.architectures():
        assert f"\n### {aid}\n" in text
    assert "❌" not in text


def test_write_is_atomic(tmp_path, monkeypatch):
    target = tmp_path / "r.md"
    target.write_text("old report\n")

    def boom(*a, **k):
        raise OSError("disk full")

    from paramcount import _io

    monkeypatch.setattr(_io.os, "replace", boom)
    with pytest.raises(OSError):
        report.write_report(target, "new report\n")
    assert target.read_text() == "old report\n"
    assert [p.name for p in tmp_path.iterdir()] == ["r.md"]  # no temporary file left behind


def test_write_creates_folder_with_ordinary_permissions(tmp_path):
    out = report.write_report(tmp_path / "sub" / "r.md", "x\n")
    assert out.read_text() == "x\n"
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask
