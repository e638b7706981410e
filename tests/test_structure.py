"""The package's shape: data flows one way (no import cycle among the modules of paramcount,
reference_models, benchmarks, examples and the tests' helpers, counting imports inside functions
and relative ones too; imports for type hints only sit under TYPE_CHECKING; no module imports one
of a higher layer, not even for a type hint), and no module grows past about 400 lines."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "paramcount"
REFS = PKG.parent / "reference_models"  # the reference builders: hyperparameters → weights
# Every package of the project: the library, its reference builders, and the front ends that use
# it from outside (benchmarks, examples, the tests and their helpers), which nothing of the first
# two may import.
ROOTS = (PKG, REFS, PKG.parent / "benchmarks", PKG.parent / "examples", PKG.parent / "tests")
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


def _imports(tree: ast.AST, func: str = ""):
    """Each import statement of ``tree`` with the name of the function it sits in ("" at module
    level), at any depth."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, func
        inner = node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else func
        yield from _imports(node, inner)


@functools.cache
def import_edges() -> tuple[tuple[str, str, str, bool], ...]:
    """(module, the project's module it imports, the function the import sits in or "", whether
    for type checkers only), for every import anywhere in every module (parsed once per test
    process: the sources do not change under the tests that read them)."""
    mods = _modules()
    tops = TOPS

    def owner(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    edges = []
    for m, f in mods.items():
        tree = ast.parse(f.read_text(encoding="utf-8"))
        skip = _type_checking_only(tree)
        for node, func in _imports(tree):
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
                    edges.append((m, o, func, id(node) in skip))
    return tuple(edges)


def import_graph() -> dict[str, set[str]]:
    """Module -> the project's modules it imports at run time (anywhere in its body)."""
    graph: dict[str, set[str]] = {m: set() for m in _modules()}
    for m, o, _, typing_only in import_edges():
        if not typing_only:
            graph[m].add(o)
    return graph


# The layers, bottom up: each is a folder of paramcount (or a top-level package), and a module may
# import its own layer and those below. The package's face (its ``__init__``, ``__main__``, and the
# pytest helper users import) sits above the command line; the front ends outside use it all.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", ("paramcount.core",)),
    ("model", ("paramcount.model",)),
    ("families", ("paramcount.families",)),
    ("references", ("reference_models",)),
    ("runtime", ("paramcount.runtime",)),
    ("analyze", ("paramcount.analyze",)),
    ("output", ("paramcount.output",)),
    ("cli", ("paramcount.cli",)),
    ("public", ("paramcount", "paramcount.__main__", "paramcount.testing", "paramcount.pytest_plugin")),
    ("outside", ("benchmarks", "examples", "tests")),
)
# paramcount's modules outside its layer folders: at most this many (beside __init__ and __main__)
MAX_LOOSE = 6


def is_test(module: str) -> bool:
    """Whether ``module`` is a test module (tests/, or ``*_test`` beside the code it tests)."""
    return module.startswith("tests.") or module.rpartition(".")[2].endswith("_test")


def layer(module: str) -> int | None:
    """The index in LAYERS of ``module``'s layer (None: no layer declares it); the longest
    declared name that ``module`` is or sits under wins. A family's own tests, kept beside it
    (``families/<f>/<f>_test.py``), are front ends like those in tests/."""
    if is_test(module):
        return len(LAYERS) - 1
    best: tuple[int, str] | None = None
    for i, (_, names) in enumerate(LAYERS):
        for full in names:
            if (module == full or module.startswith(full + ".")) and (best is None or len(full) > len(best[1])):
                best = (i, full)
    if best is not None and best[1] == "paramcount" and module != "paramcount":
        return None  # a module loose in paramcount/ that no layer names
    return best[0] if best else None


def upward(edges) -> list[str]:
    """The imports of a higher layer, but for two that run only when called, by design: Jupyter's
    display protocol (an object's ``_repr_*_`` method asks the rendering layer for its view), and
    a family's own Keras reference builder calling the shared builders of ``reference_models``."""
    out = []
    for m, o, func, typing_only in edges:
        if (func.startswith("_repr_") and func.endswith("_")) or (
                func and m.startswith("paramcount.families.") and o.startswith("reference_models")):
            continue
        lm, lo = layer(m), layer(o)
        if lm is not None and lo is not None and lo > lm:
            out.append(f"{m} ({LAYERS[lm][0]}) imports {o} ({LAYERS[lo][0]})"
                       + (" for type hints" if typing_only else "") + (f" in {func}()" if func else ""))
    return out


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


def test_every_module_has_a_layer_and_none_imports_a_higher_one():
    """One-way flow, everywhere: core → model → families → references → runtime → analyze →
    output → cli → the package's face → the front ends outside (function-level imports and type
    hints count too)."""
    assert not [m for m in _modules() if layer(m) is None]
    bad = upward(import_edges())
    assert not bad, "\n".join(bad)


def test_the_layers_are_the_folders():
    """Every folder of paramcount is a layer and every layer of paramcount a folder; at most a
    few modules sit loose beside them, each named by the package's face."""
    folders = {p.name for p in PKG.iterdir() if (p / "__init__.py").is_file()}
    declared = {n.split(".")[1] for _, names in LAYERS for n in names
                if n.startswith("paramcount.") and (PKG / n.split(".")[1]).is_dir()}
    assert folders == declared
    loose = sorted(p.stem for p in PKG.glob("*.py") if p.stem not in ("__init__", "__main__"))
    assert len(loose) <= MAX_LOOSE, loose
    assert {f"paramcount.{m}" for m in loose} <= set(LAYERS[-2][1])


def test_the_layer_check_sees_an_upward_import():
    assert layer("paramcount.analyze.prove.oracle") == layer("paramcount.analyze") != layer("paramcount.output.render")
    assert layer("paramcount.loose_module") is None  # a module outside every folder has no layer
    assert layer("paramcount.families.gpt2.gpt2_test") == layer("tests.test_cli")  # a front end
    assert upward([("paramcount.analyze.solve", "paramcount.output.render", "text", False)]) == [
        "paramcount.analyze.solve (analyze) imports paramcount.output.render (output) in text()"]
    assert upward([("paramcount.model.registry", "paramcount.analyze.verify", "", True)]) == [
        "paramcount.model.registry (model) imports paramcount.analyze.verify (analyze) for type hints"]
    assert upward([("paramcount.core.formula", "paramcount.families.gpt2", "f", False)]) == [
        "paramcount.core.formula (core) imports paramcount.families.gpt2 (families) in f()"]
    assert not upward([("paramcount.analyze.verify", "paramcount.output.render", "_repr_markdown_", False),
                       ("paramcount.output.render", "paramcount.analyze.verify", "", False)])
    tree = ast.parse("import a\ndef f():\n    import b\n    class C:\n        def g(self):\n"
                     "            import c\n")
    assert [(ast.unparse(n), f) for n, f in _imports(tree)] == [("import a", ""), ("import b", "f"),
                                                                  ("import c", "g")]


def test_the_check_sees_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_the_model_imports_no_analysis_and_no_rendering():
    """core and model sit at the bottom (symbols, formula, hparams, components, the families'
    mapping tables and where transformers puts their weights, which the families hold as data):
    they import nothing of analyze, output or cli, not even inside a function."""
    graph = import_graph()
    for m, targets in graph.items():
        if m.startswith(("paramcount.core.", "paramcount.model.")):
            assert not [t for t in targets if t.split(".")[1] in ("analyze", "output", "cli")], m


def test_the_check_reads_relative_imports_and_both_branches_of_type_checking(tmp_path):
    tree = ast.parse("from typing import TYPE_CHECKING\n"
                     "if TYPE_CHECKING:\n    from a import hint\nelse:\n    from b import run\n"
                     "if not TYPE_CHECKING:\n    import c\nelse:\n    import d\n")
    skip = _type_checking_only(tree)
    kept = {ast.unparse(n) for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
            and id(n) not in skip}
    assert kept == {"from typing import TYPE_CHECKING", "from b import run", "import c"}
    rel = ast.parse("from ..verify import x\nfrom . import y\n").body
    assert _absolute("paramcount.analyze.prove.oracle", rel[0], False) == "paramcount.analyze.verify"
    assert _absolute("paramcount.analyze.prove", rel[1], True) == "paramcount.analyze.prove"
    assert _absolute("paramcount.analyze.prove.oracle", rel[1], False) == "paramcount.analyze.prove"


def test_reference_models_import_no_analysis_and_no_rendering():
    """A reference module maps hyperparameters to weights and nothing more: it may read the
    model layer (tables, symbols, Weight), never verify, prove or anything above them."""
    graph = import_graph()
    allowed = ("core", "model", "families")
    bad = {m: sorted(t for t in targets if t.startswith("paramcount.")
                     and t.split(".")[1] not in allowed)
           for m, targets in graph.items() if m.startswith("reference_models")}
    assert not {m: t for m, t in bad.items() if t}, bad
    assert "paramcount.analyze.prove.transformers" in graph  # (the proofs against transformers: analysis)


def test_reading_configs_is_analysis():
    """configs turns a model's configuration file into hyperparameters: data for the CLI, never
    text, so it imports no rendering."""
    graph = import_graph()
    assert not [t for t in graph["paramcount.analyze.configs"]
                if t.split(".")[1] in ("output", "cli")]


def test_no_module_is_over_about_400_lines():
    long = {str(f.relative_to(PKG.parent)): n for m, f in _modules().items() if not is_test(m)
            and (n := len(f.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, long


def test_every_package_of_the_project_is_scanned_and_nothing_imports_its_front_ends():
    """benchmarks and examples use paramcount from outside: they are in the graph (so a cycle
    through them is seen), and no module of paramcount or reference_models imports them."""
    graph = import_graph()
    assert {m.partition(".")[0] for m in graph} == set(TOPS)
    assert "examples.user_architecture.sentiment" in graph
    assert "paramcount.families.gpt2" in graph and "reference_models.table" in graph
    bad = {m: sorted(t for t in ts if t.partition(".")[0] in ("benchmarks", "examples", "tests"))
           for m, ts in graph.items() if m.partition(".")[0] in ("paramcount", "reference_models")
           and not is_test(m)}
    assert not {m: t for m, t in bad.items() if t}, bad


def test_the_registry_imports_no_rendering():
    """An Architecture is model data: nothing in registry reaches the rendering layer."""
    graph = import_graph()
    assert not [t for t in graph["paramcount.model.registry"]
                if t.split(".")[1] in ("analyze", "output", "cli")]


# Words that are family ids and also something else, where a central module says the other:
# transformers' kind of language model, the English word, a model type given as an example.
NOT_THE_FAMILY = {"seq2seq": "transformers' seq2seq-LM mapping (derive's sweep)",
                  "transformer": "the word (and the registry's default family tag)",
                  "llama": "a model type named as an example in a message"}
SHARED = ("paramcount/families/", "paramcount/model/components/")  # families, shared components


def _family_ids() -> set[str]:
    from paramcount.model import discovery

    return set(discovery.folders()) | set(discovery.ids())


def _central_sources():
    for f in sorted(PKG.rglob("*.py")):
        rel = f.relative_to(PKG.parent).as_posix()
        if not rel.startswith(SHARED):
            yield rel, f.read_text(encoding="utf-8")


def test_the_named_families_are_named_only_in_their_folders():
    """Issue 29's check, as grep -w runs it (docstrings and comments too): mistral, mamba, gemma3,
    bert, deepseek_v3 and qwen3 appear in no module outside paramcount/families/ but the shared
    components (the state-space mixer is transformers' "mamba" module, named for what it is)."""
    import re

    for family in ("mistral", "mamba", "gemma3", "bert", "deepseek_v3", "qwen3"):
        word = re.compile(rf"(?<![\w]){re.escape(family)}(?![\w])")
        found = [rel for rel, text in _central_sources() if word.search(text)]
        assert not found, f"{family} named in {found}"


def test_no_central_code_names_a_family():
    """No name and no string (docstrings aside: an example in a docstring is no table) of a
    module outside the family folders and shared components is a family's id or folder."""
    import re

    ids = _family_ids() - set(NOT_THE_FAMILY)
    found = []
    for rel, text in _central_sources():
        tree = ast.parse(text)
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for n in ast.walk(tree):
            words = ([n.id] if isinstance(n, ast.Name) else re.findall(r"[\w.]+", n.value)
                     if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
                     else [])
            found += [f"{rel}:{n.lineno} {w}" for w in words if w in ids]
    assert not found, found


def test_no_private_name_crosses_modules():
    """A name with a leading underscore is its module's own: no other module of paramcount or
    reference_models imports it (tests may reach in)."""
    crossing = []
    for root in (PKG, REFS):
        for f in sorted(root.rglob("*.py")):
            if f.name.endswith("_test.py"):
                continue
            for n in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
                if isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] in TOPS[:2]:
                    crossing += [f"{f.relative_to(PKG.parent)}: {n.module}.{a.name}" for a in n.names
                                 if a.name.startswith("_") and not a.name.startswith("__")]
    assert not crossing, crossing
