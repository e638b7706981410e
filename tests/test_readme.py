"""README and the docs it links to: their commands run, the output they show is what the commands
print (formula-only commands, and `verify` of two tiny models; prove and report are exercised by
their own tests, and too slow to run here), the pytest-helper example fails as shown, the links
resolve, and the contributor docs name every option of the tables they describe."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest

from paramcount.cli.main import main
from paramcount.model import registry

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = {name: (ROOT / name).read_text(encoding="utf-8")
        for name in ("README.md", "docs/architecture.md", "docs/adding-a-family.md",
                     "benchmarks/README.md")}
FAST = ("list", "formula", "count", "solve")


def _commands() -> list[list[str]]:
    """Every `paramcount ...` line of README's indented blocks whose command is formula-only,
    with a usage alternative `[--latex | --json]` expanded into each choice."""
    out = []
    for ln in "\n".join(DOCS.values()).splitlines():
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


def _shown_outputs(errors: bool = False) -> list[tuple[list[str], list[str]]]:
    """`$ paramcount ...` blocks: the command and the lines README shows under it (with
    ``errors``, those showing a one-line error instead: a missing extra's)."""
    out = []
    for m in re.finditer(r"^ {4}\$ paramcount (.*)\n((?: {4}.*\n)+)", README, re.M):
        shown = [ln[4:] for ln in m.group(2).splitlines()]
        if shown[0].startswith("paramcount: error: ") == errors:
            out.append((shlex.split(m.group(1)), shown))
    return out


def test_readme_lists_formula_only_commands():
    assert len(COMMANDS) >= 7 and len(_shown_outputs()) >= 4 and _shown_outputs(errors=True)


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
def test_readme_shown_output_is_printed(argv, shown, capsys, monkeypatch):
    """Line for line, in order; `...` stands for any number of lines left out."""
    monkeypatch.chdir(ROOT)  # a config is named by a path relative to the checkout
    if argv[0] not in FAST:
        argv = [*argv, "--quiet", "-j", "1"]  # the same output, in this process
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


@pytest.mark.parametrize(("argv", "shown"), _shown_outputs(errors=True),
                         ids=lambda x: " ".join(x)[:40])
def test_readme_shown_missing_extra_is_printed(argv, shown):
    """The one line a command prints without its extra, with the extra's packages absent."""
    from paramcount.runtime import extras
    from tests.test_extras import run_without

    extra = re.search(r"pip install 'paramcount\[(\w+)\]'", shown[0]).group(1)
    code, out, err, _ = run_without(tuple(extras.EXTRAS[extra]), *argv)
    assert (code, out, err.splitlines()) == (2, "", shown)


def _helper_example() -> tuple[str, str]:
    """README's pytest-helper example: its code and the failure it shows."""
    code = re.search(r"^ {4}import keras_hub\n\n((?: {4}.*\n|\n)+?)\nfails with", README, re.M)
    shown = re.search(r"^fails with\n\n((?: {4}.*\n)+)", README, re.M)
    assert code and shown
    return ("import keras_hub\n\n" + "\n".join(ln[4:] for ln in code.group(1).splitlines()),
            "\n".join(ln[4:] for ln in shown.group(1).splitlines()))


def test_readme_pytest_helper_example_fails_as_shown():
    """The example runs as written, with the fixture the plugin provides, and its failure is the
    text README shows."""
    from paramcount.testing import assert_param_count

    code, shown = _helper_example()
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    with pytest.raises(AssertionError) as failure:
        namespace["test_my_model"](assert_param_count)
    assert f"AssertionError: {failure.value}" == shown


def test_links_resolve():
    """Every relative link of README and the docs names a file of the checkout."""
    for name, text in DOCS.items():
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
            if "://" not in target:
                assert (ROOT / name).parent.joinpath(target).resolve().exists(), (name, target)


def test_readme_is_for_users_and_links_the_internals():
    """Contributor internals live in docs/, linked from README; README keeps what a user needs."""
    for heading in ("## Set up and run", "## The command line", "## Configs in",
                    "## Check your own model in your tests", "## Notebook", "## The report"):
        assert heading in README
    for internal in ("## How it works", "### Where a family lives", "hf_offset=", "prove_within"):
        assert internal not in README
    assert "(docs/architecture.md)" in README and "(docs/adding-a-family.md)" in README


def test_adding_a_family_names_every_table_option():
    """Each option of a config table's Field and Table, and of the transformers declaration, is
    explained in docs/adding-a-family.md (a new option without its line there fails here)."""
    import dataclasses

    from paramcount.model import frameworks, mapping

    doc = DOCS["docs/adding-a-family.md"]
    for cls in (mapping.Field, mapping.Table, frameworks.Transformers):
        for f in dataclasses.fields(cls):
            if f.name not in ("symbol", "fields", "weights"):  # the positional essentials
                assert re.search(rf"\b{f.name}\b", doc), f"{cls.__name__}.{f.name}"


def test_benchmark_outcomes_say_missed_where_a_target_is_missed():
    """Every benchmark row with a target says whether it was met, and says "missed"
    exactly where the measured time (or its ratio to the anchor) is not within the target."""
    rows = [ln for ln in DOCS["benchmarks/README.md"].splitlines() if ln.startswith("| ") and "≤" in ln]
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


def test_readme_figures_are_the_registrys():
    """README's opening figures are computed ones (they had gone stale: 81 architectures and 455
    presets where the registry held 65 Keras-built architectures and 484 presets): the
    architectures Keras builds (the paper's and KerasHub's), those only transformers builds (the
    frontier), the published presets, and the architectures checked against transformers."""
    archs = [registry.get(a) for a in registry.architectures()]
    keras = sum("keras" in a.checked_by for a in archs)
    frontier = sum("keras" not in a.checked_by for a in archs)
    both = sum({"keras", "transformers"} <= set(a.checked_by) for a in archs)
    presets = sum(len(a.presets_table()) for a in archs)
    text = " ".join(README.split())
    assert f"- {keras} architectures Keras builds:" in text
    assert f"- The frontier, {frontier} architectures written by hand" in text
    assert f"- {presets} published presets" in text
    assert f"{both} of the architectures Keras builds are also checked against" in text


def test_readme_quick_start_is_first_and_its_figure_is_counted():
    """A new user meets a command within README's first 20 lines, and the number of published
    configs it names is the number tests/configs holds."""
    first = README.splitlines()[:20]
    assert any(ln.startswith("    $ paramcount count --config ") for ln in first)
    configs = len(list((ROOT / "tests" / "configs").glob("*.json")))
    assert f"`tests/configs/` holds {configs} published ones" in " ".join(README.split())


def test_readme_bad_input_examples_are_refused(capsys):
    """The refused inputs README's "Bad input" paragraph names by command are refused (exit 2,
    one line): it once gave "d_e not divisible by M" for GPT-2, which floors its heads."""
    start = README.index("Bad input — ")
    para = " ".join(README[start:README.index("\n\n", start)].split())
    argvs = [shlex.split(c) for c in re.findall(r"`(count [^`]+)`", para)]
    assert len(argvs) >= 2
    for argv in argvs:
        assert main(argv) == 2, argv
        _, err = capsys.readouterr()
        assert err.count("\n") == 1 and err.startswith("paramcount: error: "), err
