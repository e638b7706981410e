"""The package's shape: data flows one way (no import cycle among the modules of paramcount,
reference_models, benchmarks and examples, counting imports inside functions and relative ones
too; imports for type hints only sit under TYPE_CHECKING), and no module grows past about 400
lines."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "paramcount"
REFS = PKG.parent / "reference_models"  # the reference builders: hyperparameters → weights
# Every package of the project: the library, its reference builders, and the front ends that use
# it from outside (benchmarks, examples), which nothing of the first two may import.
ROOTS = (PKG, REFS, PKG.parent / "benchmarks", PKG.parent / "examples")
TOPS = tuple(r.name for r in ROOTS)
MAX_LINES = 420  # "about 400"


def _modules() -> dict[str, Path]:
    out = {}
    for root in ROOTS:
        for f in root.rglob("*.py"):
            parts = f.relative_to(PKG.parent).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    return out


def _type_checking_only(tree: ast.Module) -> set[int]:
    """The nodes that run for type checkers only: the body of ``if TYPE_CHECKING:`` (not its
    ``else:``, which runs), and the ``else:`` of ``if not TYPE_CHECKING:``."""
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            negated = isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not)
            for stmt in node.orelse if negated else node.body:
                ids |= {id(sub) for sub in ast.walk(stmt)}
    return ids


def _absolute(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    """The module an ``from ... import`` names, a relative one resolved against ``module``."""
    if not node.level:
        return node.module or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def import_graph() -> dict[str, set[str]]:
    """Module -> the project's modules it imports at run time (anywhere in its body)."""
    mods = _modules()
    tops = TOPS

    def owner(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, f in mods.items():
        tree = ast.parse(f.read_text(encoding="utf-8"))
        skip = _type_checking_only(tree)
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = _absolute(m, node, f.name == "__init__.py")
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                           for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for t in targets:
                o = owner(t) if t.partition(".")[0] in tops else None
                if o and o != m and o not in tops:
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
    model = ("symbols", "formula", "hparams", "components", "mapping", "frameworks", "weights",
             "heads", "options")
    for m, targets in graph.items():
        if m.startswith("paramcount.") and m.split(".")[1] in model:
            assert not [t for t in targets if t.split(".")[1] in above], m


def test_the_check_reads_relative_imports_and_both_branches_of_type_checking(tmp_path):
    tree = ast.parse("from typing import TYPE_CHECKING\n"
                     "if TYPE_CHECKING:\n    from a import hint\nelse:\n    from b import run\n"
                     "if not TYPE_CHECKING:\n    import c\nelse:\n    import d\n")
    skip = _type_checking_only(tree)
    kept = {ast.unparse(n) for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
            and id(n) not in skip}
    assert kept == {"from typing import TYPE_CHECKING", "from b import run", "import c"}
    rel = ast.parse("from ..verify import x\nfrom . import y\n").body
    assert _absolute("paramcount.prove.oracle", rel[0], False) == "paramcount.verify"
    assert _absolute("paramcount.prove", rel[1], True) == "paramcount.prove"
    assert _absolute("paramcount.prove.oracle", rel[1], False) == "paramcount.prove"


def test_reference_models_import_no_analysis_and_no_rendering():
    """A reference module maps hyperparameters to weights and nothing more: it may read the
    model layer (tables, symbols, Weight), never verify, prove or anything above them."""
    graph = import_graph()
    allowed = ("symbols", "formula", "hparams", "components", "mapping",
               "frameworks", "weights", "errors", "registry", "families",
               "preset", "keras_hub_meta")
    bad = {m: sorted(t for t in targets if t.startswith("paramcount.")
                     and t.split(".")[1] not in allowed)
           for m, targets in graph.items() if m.startswith("reference_models")}
    assert not {m: t for m, t in bad.items() if t}, bad
    assert "paramcount.prove.transformers" in graph  # (the proofs against transformers: analysis)


def test_reading_configs_is_analysis():
    """configs turns a model's configuration file into hyperparameters: data for the CLI, never
    text, so it imports no rendering."""
    graph = import_graph()
    assert not [t for t in graph["paramcount.configs"]
                if t.split(".")[1] in ("render", "report", "cli", "plots")]


def test_no_module_is_over_about_400_lines():
    long = {str(f.relative_to(PKG.parent)): n for f in _modules().values()
            if (n := len(f.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, long


def test_every_package_of_the_project_is_scanned_and_nothing_imports_its_front_ends():
    """benchmarks and examples use paramcount from outside: they are in the graph (so a cycle
    through them is seen), and no module of paramcount or reference_models imports them."""
    graph = import_graph()
    assert {m.partition(".")[0] for m in graph} == set(TOPS)
    assert "examples.user_architecture.sentiment" in graph
    assert "paramcount.families.gpt2" in graph and "reference_models.table" in graph
    bad = {m: sorted(t for t in ts if t.partition(".")[0] in ("benchmarks", "examples"))
           for m, ts in graph.items() if m.partition(".")[0] in ("paramcount", "reference_models")}
    assert not {m: t for m, t in bad.items() if t}, bad


def test_the_registry_imports_no_rendering():
    """An Architecture is model data: nothing in registry reaches the rendering layer."""
    graph = import_graph()
    assert not [t for t in graph["paramcount.registry"]
                if t.split(".")[1] in ("render", "report", "plots", "cli")]
