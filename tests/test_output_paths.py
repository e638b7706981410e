"""Output paths (issue 11, items 1 and 2): checked before any work with the true reason, never
anything but a regular file replaced, its mode kept, synced, and a report never paired with
another report's figures."""

from __future__ import annotations

import os
import stat
import time

import pytest

from paramcount.cli.main import main
from paramcount.core.errors import OutputPathError
from paramcount.output import report
from paramcount.runtime import files as _io


def run_report(capsys, target, monkeypatch):
    """`report --output target`, failing the test if any verification starts."""

    def no_work(*a, **k):
        raise AssertionError("the report started work before checking its output path")

    monkeypatch.setattr(report, "verify_all", no_work)
    start = time.monotonic()
    code = main(["report", "--output", str(target), "--quiet"])
    out, err = capsys.readouterr()
    assert time.monotonic() - start < 10
    return code, out, err


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda tmp: "/dev/full", "is a device"),
        (lambda tmp: "/dev/null", "is a device"),
        (lambda tmp: (os.mkfifo(tmp / "fifo"), tmp / "fifo")[1], "is a FIFO"),
        (lambda tmp: tmp, "is a directory"),
        (lambda tmp: ((tmp / "real.md").write_text("x"), os.symlink(tmp / "real.md", tmp / "l.md"),
                      tmp / "l.md")[2], "is a symbolic link"),
        (lambda tmp: ((tmp / "ro.md").write_text("x"), os.chmod(tmp / "ro.md", 0o444),
                      tmp / "ro.md")[2], "is read-only (mode 0444)"),
        (lambda tmp: ((tmp / "file").write_text("x"), tmp / "file" / "x.md")[1],
         "file is not a directory"),
        (lambda tmp: ((tmp / "file").write_text("x"), tmp / "file" / "a" / "b.md")[1],
         "file is not a directory"),
        (lambda tmp: "/etc/passwd/x.md", "/etc/passwd is not a directory"),
        (lambda tmp: "/proc/version", "/proc/version: is read-only"),
        (lambda tmp: tmp / "proofs.md", "the report writes its own proofs.md beside the index"),
        (lambda tmp: tmp / "composition.svg", "the report writes its own composition.svg"),
    ],
)
def test_report_refuses_before_any_work_with_the_true_reason(make, reason, tmp_path, capsys,
                                                            monkeypatch):
    target = make(tmp_path)
    before = _snapshot(tmp_path)
    dev = os.lstat("/dev/full")
    code, out, err = run_report(capsys, target, monkeypatch)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"paramcount: error: cannot write {target}: ")
    assert reason in err
    assert _snapshot(tmp_path) == before  # nothing created, replaced or re-moded
    after = os.lstat("/dev/full")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == dev.st_rdev
    assert not any(n.endswith(".svg") for n in os.listdir("/dev"))


def _snapshot(folder):
    out = {}
    for root, dirs, files in os.walk(folder):
        for n in dirs + files:
            p = os.path.join(root, n)
            st = os.lstat(p)
            body = None
            if stat.S_ISREG(st.st_mode):
                with open(p, "rb") as fh:
                    body = fh.read()
            out[p] = (st.st_mode, st.st_ino, body)
    return out


def test_symlink_is_never_followed_nor_replaced(tmp_path):
    real = tmp_path / "real.md"
    real.write_text("real\n")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    with pytest.raises(OutputPathError, match="symbolic link"):
        report.write_report(link, "new\n")
    assert link.is_symlink() and real.read_text() == "real\n"


def test_existing_mode_is_kept(tmp_path):
    target = tmp_path / "r.md"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    report.write_report(target, "new\n")
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_fsync_before_rename(tmp_path, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(_io.os, "fsync", lambda fd: (events.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(_io.os, "replace",
                        lambda a, b: (events.append("replace"), real_replace(a, b))[1])
    _io.write_atomic(tmp_path / "r.md", "x\n")
    assert events[:2] == ["fsync", "replace"]


def test_figures_never_pair_with_another_report(tmp_path, monkeypatch):
    """A failure while writing the group leaves every file as it was: the old report keeps its
    old figures, and the new figures appear only together with the new report."""
    from paramcount.analyze.verify import verify

    results = [verify("gpt2", preset="gpt2_base_en")]
    target = tmp_path / "conformance.md"
    target.write_text("old report\n")
    from paramcount.output.plots import report_figure_names

    figure = tmp_path / report_figure_names(results)[0]
    figure.write_text("old figure\n")
    calls = []
    real = os.replace

    def fail_on_the_report(a, b):
        calls.append(os.path.basename(b))
        if os.path.basename(b) == "conformance.md":
            raise OSError(28, "No space left on device")
        return real(a, b)

    # The report is renamed last: a failing disk is met before any rename happens, since every
    # temporary file is written first. Simulate a failing temporary write of the report:
    real_write_temp = _io._write_temp

    def full_disk(path, data):
        if path.name == "conformance.md":
            raise OSError(28, "No space left on device")
        return real_write_temp(path, data)

    monkeypatch.setattr(_io, "_write_temp", full_disk)
    with pytest.raises(OSError):
        report.write_report(target, "new report\n", results=results)
    assert target.read_text() == "old report\n"
    assert figure.read_text() == "old figure\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["conformance.md", figure.name])
    monkeypatch.setattr(_io, "_write_temp", real_write_temp)
    monkeypatch.setattr(_io.os, "replace", fail_on_the_report)
    with pytest.raises(OSError):
        report.write_report(target, "new report\n", results=results)
    assert calls[-1] == "conformance.md"  # the report is renamed last
    monkeypatch.setattr(_io.os, "replace", real)
    report.write_report(target, "new report\n", results=results)
    assert target.read_text() == "new report\n"
    assert figure.read_text() != "old figure\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_check_output_accepts_new_files_in_new_folders(tmp_path):
    assert _io.check_output(tmp_path / "a" / "b" / "r.md") == tmp_path / "a" / "b" / "r.md"
    assert not (tmp_path / "a").exists()  # checking creates nothing
    assert list(tmp_path.iterdir()) == []


def test_report_findings_mark_quoted_prose_and_no_meaningless_total():
    """Issue 11 item 9: figures a finding states are computed, or marked as quoted with their
    source; no "Parameters verified in all" summing twins and examples."""
    from paramcount.analyze.verify import verify
    from paramcount.model import registry

    found = [(aid, p) for aid, arch in sorted(registry.architectures().items())
             for p in arch.presets_table().values() if p.keras_hub_differs and p.keras_hub]
    if not found:
        pytest.skip("no preset file records a KerasHub disagreement")
    aid, preset = found[0]
    r = verify(aid, preset=preset.name)
    assert r.metadata_status == "differs"
    text = report.generate([r], vers={"x": "1"}, proofs=[], transformers_proofs=[], cost_proofs={})[
        "conformance.md"]
    assert "Parameters verified in all" not in text
    (line,) = [ln for ln in text.splitlines() if ln.startswith(f"- **`{r.keras_hub_preset}`**")]
    assert f"KerasHub publishes {r.keras_hub_params:,}" in line
    assert "Quoted from `families/bart/presets.toml" in line and "(not computed)" in line


def test_a_killed_writers_temporary_files_are_removed_on_the_next_write(tmp_path):
    """A SIGKILL between writing the group's temporary files and renaming them leaves them
    behind; the next write of the same files removes them (issue 22 §2). A temporary file that
    is fresh may be a live writer's and is left alone, and so is anything not of our naming."""
    old = time.time() - 3600
    stale = [tmp_path / ".proofs.json.k3j_x9.tmp", tmp_path / ".composition.svg.ab12cd.tmp",
             tmp_path / "figures" / ".gpt2.svg.zz9.tmp", tmp_path / ".paramcount-probe.q1w2"]
    fresh = tmp_path / ".proofs.json.live01.tmp"
    others = [tmp_path / ".proofs.json.notes", tmp_path / "mine.tmp"]
    for p in (*stale, fresh, *others):
        p.parent.mkdir(exist_ok=True)
        p.write_text("half")
    for p in (*stale, *others):
        os.utime(p, (old, old))
    _io.write_group({tmp_path / "figures" / "gpt2.svg": "<svg/>",
                     tmp_path / "composition.svg": "<svg/>", tmp_path / "proofs.json": "{}"})
    assert not any(p.exists() for p in stale)
    assert fresh.exists() and all(p.exists() for p in others)
