"""README's commands run, and the output README shows is what they print (formula-only commands;
verify, prove and report are exercised by their own tests, and too slow to run here)."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest

from paramcount import registry
from paramcount.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
FAST = ("list", "formula", "count", "solve")


def _commands() -> list[list[str]]:
    """Every `paramcount ...` line of README's indented blocks whose command is formula-only,
    with a usage alternative `[--latex | --json]` expanded into each choice."""
    out = []
    for ln in README.splitlines():
        m = re.match(r"^ {4}(?:\$ )?paramcount (.*)$", ln)
        if not m:
            continue
        text = m.group(1).split("#")[0].strip()
        alts = re.search(r"\[(--\S+(?: \| --\S+)*)\]", text)
        variants = [text]
        if alts:
            variants = [text.replace(alts.group(0), "").strip()] + [
                text.replace(alts.group(0), opt) for opt in alts.group(1).split(" | ")]
        for v in variants:
            argv = shlex.split(v)
            cmd = next((a for a in argv if not a.startswith("-") and not a.endswith(".py")), None)
            if cmd in FAST:
                out.append(argv)
    return out


COMMANDS = _commands()


def _shown_outputs() -> list[tuple[list[str], list[str]]]:
    """`$ paramcount ...` blocks: the command and the lines README shows under it."""
    out = []
    for m in re.finditer(r"^ {4}\$ paramcount (.*)\n((?: {4}.*\n)+)", README, re.M):
        shown = [ln[4:] for ln in m.group(2).splitlines()]
        out.append((shlex.split(m.group(1)), shown))
    return out


def test_readme_lists_formula_only_commands():
    assert len(COMMANDS) >= 7 and _shown_outputs()


@pytest.fixture(autouse=True)
def _forget_plugins():
    """A README command's plugin is forgotten after it, module too: left imported, a later
    load_plugins of the same file would not register it again (test_user_arch's fixture)."""
    before, modules = set(registry.architectures()), set(sys.modules)
    yield
    for aid in set(registry.architectures()) - before:
        registry.unregister(aid)
    for name in set(sys.modules) - modules:
        if name.startswith("paramcount_plugin_"):
            del sys.modules[name]


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_readme_command_runs(argv, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)  # the plugin example is named by a path relative to the checkout
    assert main(argv) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.strip()


@pytest.mark.parametrize(("argv", "shown"), _shown_outputs(), ids=lambda x: " ".join(x)[:40])
def test_readme_shown_output_is_printed(argv, shown, capsys):
    """Line for line, in order; `...` stands for any number of lines left out."""
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    pos = 0
    skip = False
    for line in shown:
        if line.strip() == "...":
            skip = True
            continue
        if skip:
            assert line in out[pos:], line
            pos = out.index(line, pos) + 1
        else:
            assert pos < len(out) and out[pos] == line, (line, out[pos:pos + 1])
            pos += 1
        skip = False


def test_benchmark_outcomes_say_missed_where_a_target_is_missed():
    """Every README benchmark row with a target says whether it was met, and says "missed"
    exactly where the measured time (or its ratio to the anchor) is not within the target."""
    rows = [ln for ln in README.splitlines() if ln.startswith("| ") and "≤" in ln]
    assert rows
    for row in rows:
        _what, measured, _anchor, ratio, target, outcome = (c.strip() for c in row.strip("|").split("|"))
        met = True
        seconds = re.search(r"≤ ([0-9.]+) s", target)
        if seconds:
            met &= float(re.match(r"([0-9.]+) s", measured).group(1)) <= float(seconds.group(1))
        times = re.search(r"≤ ([0-9.]+)×", target)
        if times:
            met &= float(ratio.rstrip("×")) <= float(times.group(1))
        assert outcome.startswith("met" if met else "missed"), row
