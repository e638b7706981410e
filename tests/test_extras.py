"""The install is as light as the question: the core package (SymPy alone) answers `list`,
`formula`, `count` (`--config` too) and `solve`; each reference is an extra, and a command that
needs a missing one says which in one line, exit status 2, before doing any work.

A missing package is simulated in a subprocess by marking it absent in ``sys.modules`` (``None``
there makes ``import x`` raise ModuleNotFoundError, as it does where x is not installed)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from paramcount.runtime import extras

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
HEAVY = ("tensorflow", "keras", "keras_hub", "torch", "transformers", "matplotlib",
         "safetensors", "gguf", "h5py", "numpy")
LLAMA = str(ROOT / "tests" / "configs" / "llama-2-7b-hf.json")

# In a subprocess: block the given modules, run main(argv) for each argv, print what heavy
# modules got imported as the last stdout line (JSON), exit with the last status that is not 0.
_WRAPPER = """\
import json, sys
for name in {blocked!r}:
    sys.modules[name] = None
from paramcount.cli.main import main
code = 0
for argv in {argvs!r}:
    code = main(argv) or code
print(json.dumps(sorted(m for m in {heavy!r} if sys.modules.get(m) is not None)))
sys.exit(code)
"""


def run_without(blocked: tuple[str, ...], *argv: str, more: tuple[tuple[str, ...], ...] = (),
                cwd: Path = ROOT):
    """(exit status, stdout, stderr, heavy modules imported) of ``paramcount ARGV`` (then each
    of ``more``, in the same process) with ``blocked`` absent."""
    code = _WRAPPER.format(blocked=list(blocked), argvs=[list(argv), *map(list, more)],
                           heavy=list(HEAVY))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd,
                          timeout=300)
    lines = proc.stdout.splitlines()
    imported = json.loads(lines[-1]) if lines else None
    return proc.returncode, "\n".join(lines[:-1]), proc.stderr, imported


CORE_COMMANDS = [
    ("list",),
    ("formula", "gpt2"),
    ("formula", "llama", "--latex"),
    ("count", "gpt2", "--preset", "gpt2_base_en"),
    ("count", "--config", LLAMA),
    ("count", "--config", LLAMA, "--framework", "keras", "--json"),
    ("count", "mixtral", "--preset", "mixtral_8_7b_en", "--json"),
    ("solve", "llama", "--target", "7e9", "--for", "d_e", "--set", "L=32", "v=32000", "M=32",
     "M_kv=32", "d_f=11008"),
]


@pytest.mark.parametrize("blocked", [HEAVY, ()], ids=["extras absent", "extras installed"])
def test_core_commands_need_no_extra_and_import_none(blocked):
    """With every extra's packages absent, the formula-only commands answer; absent or not, they
    import no reference framework (nor NumPy, Matplotlib or a checkpoint reader)."""
    code, out, err, imported = run_without(blocked, *CORE_COMMANDS[0], more=tuple(CORE_COMMANDS[1:]))
    assert code == 0, err
    assert imported == []
    for shown in ("albert", "N = L·", "6,738,415,616", "<- closest"):  # list, formula, count, solve
        assert shown in out


MISSING = [
    # (argv, modules made absent, the extra the one line names)
    (("verify", "gpt2", "--preset", "tiny"), ("tensorflow",), "keras"),
    (("verify", "--config", LLAMA), ("keras_hub",), "keras"),
    (("verify", "opt", "--preset", "tiny", "--framework", "all"), ("keras",), "keras"),
    (("verify", "opt", "--preset", "tiny", "--framework", "transformers"), ("torch",),
     "transformers"),
    (("verify", "opt", "--preset", "tiny", "--framework", "all"), ("transformers",),
     "transformers"),
    (("prove", "ffnn_lm"), ("keras_hub",), "keras"),
    (("prove", "opt", "--framework", "transformers"), ("transformers",), "transformers"),
    (("prove", "falcon_parallel"), ("torch",), "transformers"),
    (("report", "--output", "{tmp}/r.md"), ("matplotlib",), "report"),
    (("report", "--output", "{tmp}/r.md"), ("tensorflow",), "report"),
]


@pytest.mark.parametrize(("argv", "blocked", "extra"), MISSING,
                         ids=[f"{' '.join(a[:2])}-{'+'.join(b)}" for a, b, _ in MISSING])
def test_missing_extra_is_named_before_any_work(tmp_path, argv, blocked, extra):
    argv = tuple(a.format(tmp=tmp_path) for a in argv)
    code, out, err, imported = run_without(blocked, *argv)
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("paramcount: error: ")
    assert f"pip install 'paramcount[{extra}]'" in err
    assert all(m in err for m in blocked)  # names what is missing
    assert out == ""
    assert imported == []  # no framework imported: nothing was built or proven
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_missing_lists_only_absent_modules():
    assert extras.missing("keras") == []  # the test environment has every extra
    code = ("import sys; sys.modules['gguf'] = None; from paramcount.runtime import extras; "
            "print(extras.missing('checkpoints'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['gguf']"


# --- pyproject, constraints, README and CI agree ------------------------------------------------
def _name(requirement: str) -> str:
    return re.match(r"[A-Za-z0-9_.-]+", requirement).group(0).lower()


def _distributions(extra: str) -> set[str]:
    """The distributions ``extra`` installs, paramcount[...] references expanded."""
    out: set[str] = set()
    for req in PYPROJECT["project"]["optional-dependencies"][extra]:
        own = re.fullmatch(r"paramcount\[([a-z,]+)\]", req)
        if own:
            for e in own.group(1).split(","):
                out |= _distributions(e)
        else:
            out.add(_name(req))
    return out


def test_core_depends_on_sympy_alone():
    assert [_name(r) for r in PYPROJECT["project"]["dependencies"]] == ["sympy"]


@pytest.mark.parametrize("extra", sorted(extras.EXTRAS))
def test_extras_module_names_what_pyproject_installs(extra):
    assert _distributions(extra) == set(extras.EXTRAS[extra].values())


def test_all_is_every_extra_but_test():
    declared = set(PYPROJECT["project"]["optional-dependencies"]) - {"all", "test"}
    assert _distributions("all") == set().union(*(_distributions(e) for e in declared))
    assert declared == set(extras.EXTRAS)


def test_every_runtime_package_is_pinned():
    """What the report's figures and the references depend on is pinned, so a fresh checkout
    regenerates the committed report (and its checkpoint tests) with the same versions."""
    pinned = {_name(ln) for ln in (ROOT / "constraints.txt").read_text().splitlines()
              if "==" in ln and not ln.startswith("#")}
    wanted = _distributions("all") | {_name(r) for r in PYPROJECT["project"]["dependencies"]}
    assert wanted <= pinned, wanted - pinned


def test_proof_keys_name_only_pinned_libraries():
    """Proof keys hold the versions of these libraries: each one README's set-up installs at a
    pinned version, so a fresh checkout (CI) computes the keys of the committed proof record."""
    from paramcount.runtime import cache

    pinned = {_name(ln) for ln in (ROOT / "constraints.txt").read_text().splitlines()
              if "==" in ln and not ln.startswith("#")}
    assert set(cache._LIBRARIES) <= pinned & (_distributions("all") | {"sympy"})


def _pip_install_args(line: str) -> list[str]:
    import shlex

    argv = shlex.split(line.split("&&")[-1])
    argv = argv[argv.index("install") + 1:]
    return [a for a in argv if a != "-q"]


def test_readme_set_up_installs_everything_and_ci_installs_the_same():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    set_up_and_run = readme[readme.index("## Set up and run"):]  # (the quick start installs SymPy alone)
    setup = next(ln for ln in set_up_and_run.splitlines()
                 if ln.startswith("    python3 -m venv .venv && .venv/bin/pip install"))
    args = _pip_install_args(setup)
    spec = re.fullmatch(r"\.\[([a-z,]+)\]", args[-1])
    assert args[:-1] == ["-c", "constraints.txt", "-e"] and spec
    assert set(spec.group(1).split(",")) == {"all", "test"}
    ci = [ln for ln in (ROOT / ".ci" / "run").read_text().splitlines()  # README's .venv
          if ln.startswith(".venv/bin/") and "pip install" in ln and " -e " in ln]
    assert ci and all(_pip_install_args(ln) == args for ln in ci), ci
