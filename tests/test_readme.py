"""README's commands and sample output are what the tool does (formula-only commands; verify,
prove and report are exercised by their own tests)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from paramcount.cli import main

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
COMMANDS = [ln.strip().split("#")[0].strip() for ln in README.splitlines()
            if re.match(r"^ {4}paramcount (list|formula|count|solve)\b", ln)]


def test_readme_lists_formula_only_commands():
    assert len(COMMANDS) >= 5


@pytest.mark.parametrize("line", COMMANDS)
def test_readme_command_runs(line, capsys):
    argv = shlex.split(line)[1:]
    argv = [a for a in argv if a not in ("[--latex", "|", "--json]")]  # the usage alternatives
    assert main(argv) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.strip()


def test_readme_sample_output_matches(capsys):
    block = README.split("$ paramcount count gpt2 --preset gpt2_base_en\n", 1)[1]
    sample = [ln[4:] for ln in block.split("\n\n", 1)[0].splitlines()]
    assert main(["count", "gpt2", "--preset", "gpt2_base_en"]) == 0
    out = capsys.readouterr().out.splitlines()
    for line in sample:
        if line.strip() != "...":
            assert line in out, line
