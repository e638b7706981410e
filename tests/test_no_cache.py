"""What the on-disk cache promises, and ``--no-cache`` (issue 30 §5).

An entry's SHA-256 catches damage (a file cut short, edited by accident, copied under another
name), not a writer: whoever can write the user's own cache folder can write an entry whose
digest matches, and the cached path prints what it says. ``--no-cache`` computes afresh (the
SymPy path) and neither reads nor writes an entry."""

from __future__ import annotations

import os
import sys

import pytest

from paramcount.analyze.counting import compiled
from paramcount.cli.main import main
from paramcount.model import registry
from paramcount.runtime import cache

COUNT = ["count", "gpt2", "--preset", "gpt2_base_en"]
TRUE, TAMPERED = "124,439,808", "124,440,576"  # 2·d_e → 3·d_e in the table: + 768


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(d))
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    return d


def _cli(monkeypatch, capsys, *argv: str) -> str:
    """``paramcount ARGV`` as the console script runs it (``main()`` reads sys.argv, and takes
    the compiled path where it answers)."""
    monkeypatch.setattr(sys, "argv", ["paramcount", *argv])
    capsys.readouterr()
    assert main() == 0
    return capsys.readouterr().out


def _total(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("total (trainable)"))


def _files(folder) -> dict:
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.rglob("*"))
            if p.is_file()}


def test_a_tampered_entry_is_printed_by_the_cache_and_not_by_no_cache(cache_dir, monkeypatch,
                                                                        capsys):
    table = compiled.generate(registry.get("gpt2"))
    assert table["total_exprs"][0][1] == ["*", 2, "d_e"]
    table["total_exprs"][0][1][1] = 3  # the number edited, the digest written to match
    assert cache.put_json(compiled.KIND, compiled._digest("gpt2"), table) is not None
    before = _files(cache_dir)
    # What the cache does not promise: an entry written to match its digest is believed.
    assert TAMPERED in _total(_cli(monkeypatch, capsys, *COUNT))
    for argv in (["--no-cache", *COUNT], [*COUNT, "--no-cache"]):
        out = _cli(monkeypatch, capsys, *argv)
        assert TRUE in _total(out) and TAMPERED not in out, argv
    assert _files(cache_dir) == before  # neither read nor rewritten
    assert cache.CACHE_ENV not in os.environ  # switched back on afterwards


def test_no_cache_writes_nothing(cache_dir, monkeypatch, capsys):
    out = _cli(monkeypatch, capsys, "--no-cache", *COUNT)
    assert TRUE in _total(out) and not cache_dir.exists()
    _cli(monkeypatch, capsys, *COUNT)  # without it, the first count compiles the table
    assert list((cache_dir / compiled.KIND).glob("*.json"))


def test_every_command_takes_no_cache(capsys):
    from paramcount.cli.main import build_parser

    parser = build_parser()
    for name in ("count", "verify", "prove", "derive", "report", "solve", "formula", "list"):
        capsys.readouterr()
        with pytest.raises(SystemExit):
            parser.parse_args([name, "--help"])
        assert "--no-cache" in capsys.readouterr().out, name
