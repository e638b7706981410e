"""The numeric core (paramcount.core.numcore): one SymPy-free layer that the SymPy path and the
compiled count both call, so that no copy of resolving, checking, parsing or forming the
breakdown can drift from the other."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

from paramcount.analyze import counting
from paramcount.analyze.counting import compiled
from paramcount.cli import fast
from paramcount.cli import main as cli
from paramcount.core import numcore
from paramcount.core.errors import HyperparameterError
from paramcount.model import registry

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "paramcount"


def _table(arch) -> dict:
    return json.loads(json.dumps(compiled.generate(arch)))  # as stored


@pytest.fixture
def calls(monkeypatch):
    """Which numcore functions run (their callers see the spy through the module attribute)."""
    seen: list[str] = []
    for name in ("resolve", "unmet", "node_counts", "add_count_arguments", "parse_assignments",
                 "check_value"):
        real = getattr(numcore, name)

        def spy(*a, _real=real, _name=name, **k):
            seen.append(_name)
            return _real(*a, **k)

        monkeypatch.setattr(numcore, name, spy)
    return seen


def test_both_paths_resolve_check_and_count_through_the_core(calls):
    arch = registry.get("llama")  # constraints (divisibility), defaults, fixed symbols
    given = dict(arch.preset("llama2_7b_en").hparams)
    hp = arch.resolve(given)
    counting.counted(arch, hp)
    sympy_path = set(calls)
    calls.clear()
    ns = _table(arch)
    assert compiled.resolve(ns, given) == hp
    assert compiled.evaluate(ns, hp) == counting.counted(arch, hp)
    compiled_path = set(calls)
    assert {"resolve", "unmet", "node_counts", "check_value"} <= sympy_path & compiled_path


def test_both_command_lines_declare_count_by_the_core(calls):
    cli.build_parser()
    assert calls == ["add_count_arguments"]
    calls.clear()
    assert fast.parse(["count", "gpt2", "--preset", "gpt2_base_en", "--set", "L=2"]) == (
        "gpt2", "gpt2_base_en", ["L=2"], False)
    assert calls == ["add_count_arguments"]


def test_no_copy_remains_in_the_compiled_path():
    """compiled.py holds the table's arithmetic only: no argument loop, no domain check, no
    constraint reading of its own (the names of the copies it once held are gone)."""
    tree = ast.parse((PKG / "analyze" / "counting" / "compiled.py").read_text(encoding="utf-8"))
    defined = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert not defined & {"_violated", "_check_value", "_parse", "_plain_int", "_i", "_is_int"}
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)
                for a in n.names}
    assert "numcore" in imported and "argparse" not in imported
    src = (PKG / "analyze" / "counting" / "table.py").read_text(encoding="utf-8")
    assert "mults" not in src  # multiplicities are numcore.node_counts', from the nodes' values


def test_the_console_script_is_the_clis():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert meta["project"]["scripts"]["paramcount"] == "paramcount.cli.main:main"


def test_main_as_the_command_takes_the_compiled_count(tmp_path):
    """``main()`` (no argv: the console script) answers a warm count without SymPy."""
    env = {"PARAMCOUNT_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    code = ("import sys; from paramcount.cli.main import main; sys.argv = ['paramcount', 'count', "
            "'gpt2', '--preset', 'gpt2_base_en']; code = main(); "
            "print('SYMPY' if 'sympy' in sys.modules else 'NO-SYMPY'); sys.exit(code)")
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert first.returncode == 0 and first.stdout.endswith("SYMPY\n")  # compiles for next time
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert second.returncode == 0 and second.stdout.endswith("NO-SYMPY\n")
    assert first.stdout.rsplit("\n", 2)[0] == second.stdout.rsplit("\n", 2)[0]


@pytest.mark.parametrize("argv", [
    ["count", "gpt2", "--pre", "gpt2_base_en"],  # an abbreviation: argparse's own reading
    ["count", "gpt2", "--preset", "gpt2_base_en", "--plugin", "x"],
    ["count", "gpt2", "--preset", "gpt2_base_en", "--verbose"],
    ["count", "gpt2", "--preset", "gpt2_base_en", "--framework", "keras"],
    ["count", "gpt2", "--preset", "a", "--preset", "b"],
    ["count", "gpt2", "-h"],
    ["count", "gpt2"],
    ["count", "--", "gpt2", "--preset", "gpt2_base_en"],
    ["formula", "gpt2"],
])
def test_the_compiled_count_leaves_the_rest_to_the_full_command_line(argv):
    assert fast.parse(argv) is None


def test_unmet():
    assert numcore.unmet("div", 10, 4) and not numcore.unmet("div", 12, 4)
    assert not numcore.unmet("div", Fraction(5, 2), 4)  # not whole: not checked
    assert not numcore.unmet("div", None, 4)
    assert numcore.unmet("rel", 3, 2, "<=") and not numcore.unmet("rel", 2, 2, "==")
    assert not numcore.unmet("rel", 3, 2, "<=", when=0)  # not enforced
    assert not numcore.unmet("rel", 3, 2, "<=", when=None)  # condition not known yet
    assert numcore.unmet("rel", Fraction(7, 2), 3, "<=")


def test_node_counts_carry_every_multiplicity_above():
    # root × 1 → group × 3 → leaf × 2 of 5 each; a sibling leaf of 7
    assert numcore.node_counts([-1, 0, 1, 0], [1, 3, 2, 1], [37, 10, 5, 7]) == [37, 30, 30, 7]
    assert numcore.node_counts([-1, 0], [1, Fraction(1, 2)], [4, 4]) == [4, 2]
    with pytest.raises(ValueError):
        numcore.node_counts([-1, 0], [1, Fraction(1, 2)], [3, 3])
    assert numcore.nested({"a": 1, "b": {"c": 2}}, [9, 5, 6]) == {"a": 5, "b": {"c": 6}}


def test_parse_assignments_reads_integers_one_way():
    assert numcore.parse_assignments(["L=1_000", "M=+3"], lambda n: None) == {"L": 1000, "M": 3}
    for bad in (["L=1.0"], ["L=1e3"], ["L"], ["L=2", "L=3"]):
        with pytest.raises(HyperparameterError):
            numcore.parse_assignments(bad, lambda n: None)


def test_the_core_imports_no_sympy():
    code = "import sys, paramcount.core.numcore; sys.exit('sympy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], env={"PYTHONPATH": str(ROOT)}).returncode == 0
