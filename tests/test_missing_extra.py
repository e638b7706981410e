"""Without the transformers extra (torch, transformers), everything but the transformers checks
works: ``report`` and bare ``prove`` leave those out and say so, rather than failing after all
their work."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from paramcount.analyze import verify
from paramcount.cli.main import main
from paramcount.model import registry

ROOT = Path(__file__).resolve().parents[1]
BLOCKER = (  # a sitecustomize: torch and transformers are not installed, as far as it can tell
    "import sys\n"
    "class _Block:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name.partition('.')[0] in ('torch', 'transformers'):\n"
    "            raise ImportError(f'No module named {name!r}', name=name)\n"
    "sys.meta_path.insert(0, _Block())\n")


def _without_extra(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "sitecustomize.py").write_text(BLOCKER)
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}", "PARAMCOUNT_PROGRESS": "0"}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          timeout=300)


def test_the_report_says_at_its_top_what_it_leaves_out(tmp_path):
    code = ("from paramcount.output import report\n"
            "from paramcount.analyze.verify import verify\n"
            "print(report.left_out())\n"
            "pages = report.generate([verify('ffnn_lm', preset='tiny')], proofs=[],\n"
            "                        vers={'TensorFlow': 'x'})\n"
            "text = list(pages.values())[-1]  # the index, last\n"
            "print(text[:text.index('## Counting convention')])\n"
            "print(pages['proofs_transformers.md'][:400])\n")
    out = _without_extra(tmp_path, "-c", code)
    assert out.returncode == 0, out.stderr
    assert "'falcon_parallel'" in out.stdout.splitlines()[0]
    top = out.stdout.split("## Counting convention")[0]
    assert "**Written without the transformers extra** (torch is not installed)" in top
    assert "falcon_parallel" in top and "which only transformers builds" in top
    assert "so this is not the committed report" in top
    assert "torch and transformers are not installed here" in out.stdout


def test_prove_of_a_model_only_transformers_builds_needs_the_extra(tmp_path):
    out = _without_extra(tmp_path, "-m", "paramcount", "prove", "falcon_parallel")
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "pip install 'paramcount[transformers]'" in out.stderr


@pytest.fixture
def no_extra(monkeypatch):
    """The extra missing (paramcount.analyze.verify.transformers_missing, which everything asks), and
    the registry cut to two architectures: one Keras builds, one only transformers builds."""
    monkeypatch.setattr(verify, "transformers_missing", lambda: "torch")
    archs = {a: registry.get(a) for a in ("ffnn_lm", "falcon_parallel")}
    monkeypatch.setattr(registry, "architectures", lambda: dict(archs))
    from paramcount.output import report

    # the checkpoints page reads published configs of families cut from this registry
    monkeypatch.setattr(report, "PAGES", [p for p in report.PAGES if p.path != "checkpoints.md"])


def test_bare_prove_leaves_out_what_only_transformers_builds(no_extra, capsys):
    assert main(["prove", "--quiet", "-j", "1"]) == 0
    out, err = capsys.readouterr()
    assert "ffnn_lm: PROVEN" in out and "falcon_parallel" not in out
    assert "left out (only transformers builds them; torch is not installed" in err
    assert "falcon_parallel" in err and out.rstrip().splitlines()[-1].startswith("1 proven")


def test_report_without_the_extra_is_written_and_says_so(no_extra, capsys, tmp_path):
    target = tmp_path / "conformance.md"
    assert main(["report", "--output", str(target), "--quiet", "-j", "1"]) == 0
    err = capsys.readouterr().err
    assert "Written without the transformers extra (torch is not installed)" in err
    text = target.read_text()
    assert "not the committed report" in text[:text.index("## Counting convention")]
    assert (tmp_path / "families" / "ffnn_lm.md").is_file()
    assert not (tmp_path / "families" / "falcon_parallel.md").exists()
