"""Where `paramcount report` reads its recorded proofs: the project's committed
`reports/proofs.json` (or `--proofs PATH`), wherever the report itself is written. Read beside
the output, a report written elsewhere (CI's artifact folder) proved everything cold: about six
minutes instead of one or two (issue 22)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paramcount.analyze.prove import record
from paramcount.cli.main import main
from paramcount.core.errors import ParamcountError
from paramcount.output import report

COMMITTED = Path(__file__).resolve().parent.parent / "reports" / record.RECORD_NAME
ARCHS = ("ffnn_lm", "lstm_lm")  # no transformers reference: this process stays free of torch


def test_a_report_written_elsewhere_reads_the_committed_record(tmp_path):
    assert report.proofs_source(tmp_path / "elsewhere" / "x.md") == COMMITTED
    given = tmp_path / "mine.json"
    given.write_text("{}", encoding="utf-8")
    assert report.proofs_source(tmp_path / "x.md", given) == given
    with pytest.raises(ParamcountError, match="cannot read the proof record"):
        report.proofs_source(tmp_path / "x.md", tmp_path / "absent.json")


def test_a_report_outside_a_checkout_reads_the_record_beside_it(tmp_path, monkeypatch):
    monkeypatch.setattr(report, "PROJECT_RECORD", tmp_path / "no-checkout" / "proofs.json")
    assert report.proofs_source(tmp_path / "out" / "x.md") == tmp_path / "out" / record.RECORD_NAME


@pytest.fixture(scope="module")
def results():
    return [report.verify(a, preset=p.name) for a in ARCHS
            for p in report.registry.get(a).hparam_sets()[:1]]


def _no_proving(monkeypatch):
    """Record what the report would prove; proving anything fails the test."""
    from paramcount.analyze import parallel

    asked: list[str] = []

    def cold(aid, framework="keras"):
        raise AssertionError(f"{aid} proven cold: the committed record was not read")

    def in_workers(ids, **kw):  # what -j N would prove in worker processes
        asked.extend(ids)
        if ids:
            cold(ids[0])
        return []

    monkeypatch.setattr(parallel, "prove_jobs", in_workers)
    monkeypatch.setattr(record, "prove_against", cold)
    return asked


@pytest.fixture
def project_record(tmp_path, monkeypatch) -> Path:
    """The project's record, its outcomes for ARCHS keyed as now (the committed record's
    outcomes, whether or not it is itself current: test_report checks that)."""
    committed = record.load(COMMITTED)
    path = tmp_path / "project" / "reports" / record.RECORD_NAME
    path.parent.mkdir(parents=True)
    path.write_text(record.dumps({a: {**committed[a], "key": record.key(a)} for a in ARCHS}),
                    encoding="utf-8")
    monkeypatch.setattr(report, "PROJECT_RECORD", path)
    return path


def test_report_output_elsewhere_reuses_the_committed_proofs(tmp_path, monkeypatch, results,
                                                             capsys, project_record):
    asked = _no_proving(monkeypatch)
    monkeypatch.setattr(report, "verify_all", lambda **kw: results)
    out = tmp_path / "elsewhere" / "x.md"
    out.parent.mkdir()
    assert main(["report", "--output", str(out), "--quiet", "-j", "1"]) == 0, capsys.readouterr().err
    assert asked == []
    written = json.loads((out.parent / record.RECORD_NAME).read_text(encoding="utf-8"))
    committed = json.loads(project_record.read_text(encoding="utf-8"))
    for aid in ARCHS:  # the committed outcomes, carried into the record beside the report
        assert written["architectures"][aid] == committed["architectures"][aid]
    assert "## Proofs" in (out.parent / "proofs.md").read_text(encoding="utf-8")


def test_report_proofs_option_names_the_record(tmp_path, monkeypatch, results, capsys):
    asked = _no_proving(monkeypatch)
    monkeypatch.setattr(report, "verify_all", lambda **kw: results)
    empty = tmp_path / "empty.json"
    empty.write_text(record.dumps({}), encoding="utf-8")
    monkeypatch.setenv("PARAMCOUNT_DEBUG", "1")  # main raises the test's AssertionError
    with pytest.raises(AssertionError, match="proven cold"):  # an empty record: proven anew
        main(["report", "--output", str(tmp_path / "x.md"), "--proofs", str(empty), "--quiet",
              "-j", "2"])
    assert sorted(asked) == sorted(ARCHS)
    code = main(["report", "--output", str(tmp_path / "x.md"), "--proofs",
                 str(tmp_path / "absent.json"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "cannot read the proof record" in err
    assert not (tmp_path / "x.md").exists()
