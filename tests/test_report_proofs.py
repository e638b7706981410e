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


# --- issue 30 §12: the record decided before any work ---------------------------------------------
def _recorded(monkeypatch) -> list[str]:
    """Proving returns the committed outcomes, and records what it was asked to prove."""
    from paramcount.analyze import parallel

    committed = record.load(COMMITTED)
    asked: list[str] = []

    def prove(aid, framework="keras"):
        asked.append(aid)
        return record._proof(aid, committed[aid])

    monkeypatch.setattr(record, "prove_against", prove)
    monkeypatch.setattr(parallel, "prove_jobs", lambda ids, **kw: [prove(a) for a in ids])
    return asked


@pytest.fixture
def no_project_record(tmp_path, monkeypatch):
    """A regular install (`pip install .`): no checkout's reports/proofs.json beside the code."""
    monkeypatch.setattr(report, "PROJECT_RECORD", tmp_path / "site-packages" / "proofs.json")


def test_a_report_without_a_record_is_refused_before_any_work(tmp_path, monkeypatch, capsys,
                                                              no_project_record):
    def verify_all(**kw):
        raise AssertionError("verified before the record was decided")

    monkeypatch.setattr(report, "verify_all", verify_all)
    out = tmp_path / "x" / "conformance.md"
    out.parent.mkdir()
    assert main(["report", "--output", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no proof record to reuse" in err, err
    assert "--proofs PATH" in err and "--no-record" in err and "6 to 8 at -j 2" in err
    assert list(out.parent.iterdir()) == []


def test_report_no_record_proves_afresh_and_says_so(tmp_path, monkeypatch, results, capsys,
                                                    no_project_record):
    """Without a record, --no-record proves everything here, and no longer fails after the
    work with "cannot read the proof record …/proofs.json" (the record once decided late)."""
    asked = _recorded(monkeypatch)
    monkeypatch.setattr(report, "verify_all", lambda **kw: results)
    out = tmp_path / "x" / "conformance.md"
    out.parent.mkdir()
    for jobs in ("1", "2"):  # in this process, and in workers
        asked.clear()
        assert main(["report", "--output", str(out), "--quiet", "--no-record", "-j", jobs]) == 0
        err = capsys.readouterr().err
        assert "--no-record: proving all" in err and "6 to 8 at -j 2" in err, err
        assert sorted(asked) == sorted(ARCHS)
    assert "## Proofs" in (out.parent / "proofs.md").read_text(encoding="utf-8")
    # the record now beside it is reused by the next report there
    assert report.reusable_record(out) == out.parent / record.RECORD_NAME
    asked.clear()
    assert main(["report", "--output", str(out), "--quiet", "-j", "1"]) == 0
    assert asked == []


def test_report_no_record_reuses_nothing(tmp_path, monkeypatch, results, capsys, project_record):
    asked = _recorded(monkeypatch)
    monkeypatch.setattr(report, "verify_all", lambda **kw: results)
    assert main(["report", "--output", str(tmp_path / "x.md"), "--quiet", "--no-record",
                 "-j", "1"]) == 0
    assert sorted(asked) == sorted(ARCHS)
    assert main(["report", "--output", str(tmp_path / "x.md"), "--no-record", "--proofs",
                 str(project_record)]) == 2  # one or the other


def test_reusable_record(tmp_path, no_project_record):
    assert report.reusable_record(None) is None
    assert report.reusable_record(tmp_path / "x.md") is None
    (tmp_path / record.RECORD_NAME).write_text("{}", encoding="utf-8")
    assert report.reusable_record(tmp_path / "x.md") == tmp_path / record.RECORD_NAME
    with pytest.raises(ParamcountError, match="cannot read the proof record"):
        report.reusable_record(None, tmp_path / "absent.json")


def test_prove_reuses_the_record_as_report_does(monkeypatch, capsys, project_record):
    """Bare `prove` cold did not finish within 30 minutes on a loaded 2-core machine: it reads
    the outcomes the project's record holds under their current key, as `report` does."""
    asked = _no_proving(monkeypatch)
    assert main(["prove", *ARCHS, "--quiet", "-j", "1"]) == 0
    out = capsys.readouterr().out
    assert asked == []
    for aid in ARCHS:
        assert f"{aid}: PROVEN" in out and f"as recorded in {project_record}" in out
    assert out.rstrip().splitlines()[-1].endswith(
        f"2 read from {project_record}, their key unchanged (--no-record proves them here)")
    assert main(["prove", ARCHS[0], "--json", "--quiet"]) == 0
    (p,) = json.loads(capsys.readouterr().out)
    assert p["status"] == "proven" and p["recorded"] == str(project_record)
    # --no-record, or a key that no longer matches: proven here
    monkeypatch.setenv("PARAMCOUNT_DEBUG", "1")
    with pytest.raises(AssertionError, match="proven cold"):
        main(["prove", ARCHS[0], "--quiet", "--no-record", "-j", "1"])
    assert asked == [ARCHS[0]]
    asked.clear()
    monkeypatch.setattr(record, "key", lambda aid, framework="keras": "changed")
    with pytest.raises(AssertionError, match="proven cold"):
        main(["prove", ARCHS[1], "--quiet", "-j", "1"])
    assert asked == [ARCHS[1]]


def test_bare_prove_without_a_record_says_what_it_costs(monkeypatch, capsys, no_project_record):
    asked = _recorded(monkeypatch)
    archs = {a: report.registry.get(a) for a in ARCHS}
    monkeypatch.setattr(report.registry, "architectures", lambda: dict(archs))
    assert main(["prove", "--quiet", "-j", "1"]) == 0
    err = capsys.readouterr().err
    assert "no proof record to reuse" in err and f"proving all {len(ARCHS)} architectures" in err
    assert "6 to 8 at -j 2" in err and sorted(asked) == sorted(ARCHS)
