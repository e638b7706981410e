"""The package's shape: data flows one way (no import cycle among paramcount's modules, counting
imports inside functions too; imports for type hints only sit under TYPE_CHECKING), and no
module grows past about 400 lines."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "paramcount"
MAX_LINES = 420  # "about 400"


def _modules() -> dict[str, Path]:
    out = {}
    for f in PKG.rglob("*.py"):
        parts = f.relative_to(PKG.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    return out


def _under_type_checking(tree: ast.Module) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            ids |= {id(sub) for sub in ast.walk(node)}
    return ids


def import_graph() -> dict[str, set[str]]:
    """Module -> the paramcount modules it imports at run time (anywhere in its body)."""
    mods = _modules()

    def owner(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, f in mods.items():
        tree = ast.parse(f.read_text(encoding="utf-8"))
        skip = _under_type_checking(tree)
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in mods
                           else node.module for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for t in targets:
                o = owner(t) if t.startswith("paramcount") else None
                if o and o != m and o != "paramcount":
                    graph[m].add(o)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                return [*stack[stack.index(n):], n]
            if n not in state and (found := visit(n)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_no_import_cycle():
    cycle = _cycle(import_graph())
    assert cycle is None, " -> ".join(cycle)


def test_the_check_sees_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_the_model_imports_no_analysis_and_no_rendering():
    """symbols, formula, hparams and components sit at the bottom, with the families' mapping
    tables (mapping) and where transformers puts their weights (frameworks), which the
    architecture modules hold as data: they import nothing above them, not even inside a
    function."""
    graph = import_graph()
    above = ("verify", "context", "prove", "solve", "configs", "render", "report", "cli", "plots")
    model = ("symbols", "formula", "hparams", "components", "mapping", "frameworks", "heads",
             "options")
    for m, targets in graph.items():
        if m != "paramcount" and m.split(".")[1] in model:
            assert not [t for t in targets if t.split(".")[1] in above], m


def test_reading_configs_is_analysis():
    """configs turns a model's configuration file into hyperparameters: data for the CLI, never
    text, so it imports no rendering."""
    graph = import_graph()
    assert not [t for t in graph["paramcount.configs"]
                if t.split(".")[1] in ("render", "report", "cli", "plots")]


def test_no_module_is_over_about_400_lines():
    long = {str(f.relative_to(PKG.parent)): n for f in PKG.rglob("*.py")
            if (n := len(f.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, long
