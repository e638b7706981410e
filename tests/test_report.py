"""The conformance report: golden file, atomic writes (determinism: tests/test_determinism.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from paramcount.output import report
from tests._shared import all_verified, needs_transformers

GOLDEN = Path(__file__).resolve().parent.parent / "reports" / "conformance.md"


@pytest.fixture(scope="module")
def results():
    return all_verified()


@pytest.fixture(scope="module")
def proofs(results):
    """The proofs the committed report shows: recorded ones whose key still matches (an
    architecture whose formula, builder, libraries or prover changed is proven here anew)."""
    from paramcount.analyze.prove.record import COSTS

    keras, keras_record = report.proofs_for(results, GOLDEN)
    hf, hf_record = report.proofs_for(results, GOLDEN, framework="transformers")
    costs = {q: report.proofs_for(results, GOLDEN, framework=q) for q in COSTS}
    return (keras, keras_record, hf, hf_record, {q: p for q, (p, _) in costs.items()},
            {q: r for q, (_, r) in costs.items()})


@pytest.fixture(scope="module")
def pages(results, proofs) -> dict[str, str]:
    return report.generate(results, proofs=proofs[0], transformers_proofs=proofs[2],
                           cost_proofs=proofs[4])


@pytest.fixture(scope="module")
def text(pages) -> str:
    """The index."""
    return pages[GOLDEN.name]


def test_golden_report(pages, results, proofs, request, tmp_path):
    """reports/conformance.md, every page behind it, its figures and its proof record are what
    `paramcount report` writes now (update: pytest --update-golden)."""
    from paramcount.analyze.prove import record
    from paramcount.output.plots import write_plots

    if request.config.getoption("--update-golden"):
        report.write_report(GOLDEN, pages, results=results, proof_record=proofs[1],
                            transformers_record=proofs[3], cost_records=proofs[5])
    committed = GOLDEN.parent / record.RECORD_NAME
    assert committed.exists() and committed.read_text(encoding="utf-8") == record.dumps(
        proofs[1], proofs[3], proofs[5]), (
        "reports/proofs.json is stale: regenerate with `paramcount report` and commit it")
    assert list(pages)[-1] == GOLDEN.name  # the index, renamed last
    for name, page in pages.items():
        path = GOLDEN.parent / name
        assert path.exists(), f"reports/{name} is missing: run `paramcount report`"
        assert path.read_text(encoding="utf-8") == page, (
            f"reports/{name} is stale: regenerate with `paramcount report` "
            "(or pytest --update-golden) and commit it")
    family_dir = GOLDEN.parent / report.FAMILY_DIR
    stale = sorted(p.name for p in family_dir.iterdir()
                   if f"{report.FAMILY_DIR}/{p.name}" not in pages)
    assert not stale, f"reports/{report.FAMILY_DIR}/ holds pages no report writes: {stale}"
    for fresh in write_plots(results, tmp_path):
        committed = GOLDEN.parent / fresh.name
        assert committed.exists() and committed.read_bytes() == fresh.read_bytes(), (
            f"reports/{fresh.name} is stale: regenerate with `paramcount report`")
    from paramcount.output import report_costs

    kv = report_costs.kv_figure(proofs[4])
    assert kv is not None and (GOLDEN.parent / report_costs.FIGURE).read_bytes() == kv.svg(), (
        f"reports/{report_costs.FIGURE} is stale: regenerate with `paramcount report`")


def test_report_states_convention_versions_and_every_architecture(pages, text):
    """Issue 17 item 6: the index is short (at most 100 KB) and holds the convention, the
    versions, one summary row per architecture linked to its page, the findings, the plots and
    a line per section page; every link between pages lands on a page the report writes."""
    import re

    from paramcount.model import registry
    from paramcount.output.plots import REPORT_FIGURES

    assert len(text.encode("utf-8")) <= 100_000, len(text.encode("utf-8"))
    assert "## Counting convention" in text and "Tied weights counted once" in text
    for pkg in ("TensorFlow", "Keras", "KerasHub", "SymPy"):
        assert f"| {pkg} | " in text
    for heading in ("## Summary", "## Findings", "## Plots", "## More"):
        assert f"\n{heading}\n" in text
    for aid in registry.architectures():
        assert f"\n| [{aid}](families/{aid}.md) | " in text
        assert f"families/{aid}.md" in pages
        assert pages[f"families/{aid}.md"].startswith(f"# paramcount conformance report · {aid}\n")
    for page in report.PAGES:
        assert f"- [{page.title}]({page.path})" in text and page.path in pages
    for name, page in pages.items():
        folder = Path(name).parent
        for target in re.findall(r"\]\(([^)#:]+\.(?:md|svg))\)", page):
            resolved = os.path.normpath(folder / target)
            assert resolved in pages or resolved in REPORT_FIGURES, (name, target)
    assert not any("❌" in page for page in pages.values())


def test_write_is_atomic(tmp_path, monkeypatch):
    target = tmp_path / "r.md"
    target.write_text("old report\n")

    def boom(*a, **k):
        raise OSError("disk full")

    from paramcount.runtime import files as _io

    monkeypatch.setattr(_io.os, "replace", boom)
    with pytest.raises(OSError):
        report.write_report(target, "new report\n")
    assert target.read_text() == "old report\n"
    assert [p.name for p in tmp_path.iterdir()] == ["r.md"]  # no temporary file left behind


def test_pages_are_one_group_beside_the_index_renamed_last(tmp_path, monkeypatch):
    """Every page goes to its name relative to the index's folder (families/ created), all
    written and synced before any rename, the index renamed last; a failure while writing any
    temporary file leaves every old page as it was."""
    from paramcount.runtime import files as _io

    folder = tmp_path / "out"
    pages = {"presets.md": "P\n", "families/x.md": "X\n", "r.md": "index\n"}
    report.write_report(folder / "r.md", {k: "old\n" for k in pages})
    real_temp, real_replace = _io._write_temp, _io.os.replace

    def fail_on_family(path, data):
        if path.name == "x.md":
            raise OSError(28, "No space left on device")
        return real_temp(path, data)

    monkeypatch.setattr(_io, "_write_temp", fail_on_family)
    with pytest.raises(OSError):
        report.write_report(folder / "r.md", pages)
    assert {str(p.relative_to(folder)): p.read_text() for p in folder.rglob("*.md")} == {
        k: "old\n" for k in pages}
    monkeypatch.setattr(_io, "_write_temp", real_temp)
    renamed = []
    monkeypatch.setattr(_io.os, "replace", lambda a, b: (renamed.append(Path(b).name),
                                                         real_replace(a, b))[1])
    out = report.write_report(folder / "r.md", pages)
    assert out == folder / "r.md" and renamed[-1] == "r.md" and len(renamed) == 3
    assert {str(p.relative_to(folder)): p.read_text() for p in folder.rglob("*.md")} == pages
    assert not [p for p in folder.rglob("*") if p.name.endswith(".tmp")]


def test_write_creates_folder_with_ordinary_permissions(tmp_path):
    out = report.write_report(tmp_path / "sub" / "r.md", "x\n")
    assert out.read_text() == "x\n"
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask


def test_recorded_proof_reads_back_as_the_same_section(tmp_path, monkeypatch):
    """A recorded outcome renders exactly as the proof it records; a changed key is proven anew."""
    from paramcount.analyze.prove import cached_prove, record
    from paramcount.output.proofs import proofs_markdown
    from paramcount.runtime import cache

    monkeypatch.setenv("PARAMCOUNT_CACHE", "0")
    fresh = cached_prove("ffnn_lm")
    path = tmp_path / record.RECORD_NAME
    path.write_text(record.dumps({"ffnn_lm": record._entry(fresh, cache.proof_key(
        report.registry.get("ffnn_lm")))}), encoding="utf-8")
    assert record.stale(["ffnn_lm"], path) == []
    proofs, rec = record.proofs_for(["ffnn_lm"], path)
    assert proofs_markdown(proofs) == proofs_markdown([fresh])
    assert record.dumps(rec) == path.read_text(encoding="utf-8")
    data = record.load(path)
    data["ffnn_lm"]["key"] = "0" * 64  # as if the formula had changed since
    path.write_text(record.dumps(data), encoding="utf-8")
    assert record.stale(["ffnn_lm"], path) == ["ffnn_lm"]
    calls = []
    monkeypatch.setattr("paramcount.analyze.prove.cached_prove", lambda a: calls.append(a) or fresh)
    record.proofs_for(["ffnn_lm"], path)
    assert calls == ["ffnn_lm"]


def test_report_proves_every_transformers_reference(pages, results):
    """Issue 9: formula + deltas ≡ transformers is proven for every architecture with a
    transformers reference, as the formula ≡ Keras is, and the report says so."""
    needs_transformers()
    ids = report.transformers_ids(results)
    assert len(ids) >= 40
    section = pages["proofs_transformers.md"]
    assert f"{len(ids)} of {len(ids)} architectures proven" in section
    for aid in ids:
        assert f"\n| {aid} | " in section
