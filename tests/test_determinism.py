"""Determinism, tested so that it can fail: the same output generated twice, in two separate
processes (fresh caches, fresh hash seeds), compared byte for byte."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Every page of the report over two architectures (the index, their pages, every section page),
# and its figures. The proofs are left out here (proving costs a minute per process; the pages
# render them from recorded outcomes, see tests/test_report.py); the full report is compared by
# the slow test below.
SUBSET = ("albert", "lstm_lm")


def report_subset(arch_ids) -> bytes:
    """The pages and figure digests of the report over ``arch_ids``, as one text."""
    from paramcount.output import report
    from paramcount.output.plots import report_plots

    results = report.verify_all(arch_ids)
    pages = report.generate(results, proofs=[], transformers_proofs=[], cost_proofs={})
    out = [f"\n=== {name}\n{text}" for name, text in pages.items()]
    out += [f"\n{name} " + hashlib.sha256(plot.svg()).hexdigest()
            for name, plot in sorted(report_plots(results).items())]
    return "".join(out).encode()


REPORT_SUBSET = """
import sys
from tests.test_determinism import report_subset
sys.stdout.buffer.write(report_subset(sys.argv[1:]))
"""


def _twice(argv: list[str], seeds=("1", "2"), timeout: int = 600) -> list[bytes]:
    outs = []
    for seed in seeds:  # different hash seeds: set and dict orders of strings differ
        proc = subprocess.run([sys.executable, *argv], capture_output=True, cwd=ROOT,
                              timeout=timeout,
                              env={**os.environ, "PYTHONPATH": ROOT, "PYTHONHASHSEED": seed})
        assert proc.returncode == 0, proc.stderr.decode()[-2000:]
        outs.append(proc.stdout)
    return outs


@pytest.mark.parametrize("argv", [
    ["formula", "llama", "--json"], ["formula", "mixtral", "--latex"],
    ["count", "qwen3_moe", "--preset", "qwen3_moe_30b_a3b_en", "--json"],
    ["count", "t5", "--preset", "t5_base_multi", "--json"], ["list"],
])
def test_formula_and_count_output_is_byte_identical_across_processes(argv):
    a, b = _twice(["-m", "paramcount", *argv])
    assert a and a == b


def test_report_subset_is_byte_identical_across_processes():
    """Generated here (a process many tests ran in, its caches warm, its own hash seed) and in a
    fresh process with another hash seed: the same bytes. (Generated once per process: a second
    fresh process would only repeat the first one's work.)"""
    here = os.environ.get("PYTHONHASHSEED")
    (fresh,) = _twice(["-c", REPORT_SUBSET, *SUBSET], seeds=("2" if here == "1" else "1",))
    a = report_subset(SUBSET)
    assert b"## Summary" in a and b".svg " in a
    for page in (b"conformance.md", b"families/albert.md", b"families/lstm_lm.md", b"proofs.md",
                 b"presets.md", b"frameworks.md", b"rules_of_thumb.md"):
        assert b"\n=== " + page + b"\n" in a
    assert hashlib.sha256(a).hexdigest() == hashlib.sha256(fresh).hexdigest()


@pytest.mark.slow
def test_full_report_is_byte_identical_across_processes(tmp_path):
    outs = []
    for i in (1, 2):
        out = tmp_path / str(i) / "conformance.md"
        subprocess.run([sys.executable, "-m", "paramcount", "report", "--quiet", "--output",
                        str(out)], check=True, cwd=ROOT, timeout=1800,
                       env={**os.environ, "PYTHONPATH": ROOT, "PYTHONHASHSEED": str(i)})
        outs.append({str(p.relative_to(out.parent)): p.read_bytes()
                     for p in sorted(out.parent.rglob("*")) if p.is_file()})
    assert outs[0] == outs[1] and "conformance.md" in outs[0] and "families/gpt2.md" in outs[0]
