"""Discovery and the objects the registry hands out: the family folders' declared ids, the
``paramcount.architectures`` entry-point group, symbols declared statically, and an
``Architecture`` that is hashable and prints itself in LaTeX."""

from __future__ import annotations

import ast
import dataclasses
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import sympy

from paramcount.core import symbols
from paramcount.model import discovery, registry

ROOT = Path(__file__).resolve().parent.parent


def _fresh(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (nothing imported before it), this checkout first."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin"},
                          timeout=120)


def test_every_family_folder_registers_exactly_the_ids_it_declares():
    """Discovery (each folder's ``IDS``, read as text) and registration agree: every declared id
    is registered, and nothing else is registered by the built-in folders."""
    folders = {p.name for p in discovery.HERE.iterdir()
               if (p / "__init__.py").is_file()}
    declared = discovery.ids()
    assert set(declared.values()) == folders
    proc = _fresh("""
        import sys
        from paramcount.model import registry
        every = registry.architectures()
        print(sorted(every))
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(sorted(declared))


def test_a_family_registering_an_undeclared_id_is_refused(monkeypatch):
    """A folder that registers an id its ``IDS`` does not name is an error at import, whatever
    folder does declare it (electra registering "bert" too)."""
    import dataclasses

    arch = dataclasses.replace(registry.get("gpt2"), id="gpt2_undeclared")
    registry.get("bert")
    monkeypatch.setattr(registry, "_IMPORTING_BUILTIN", True)
    monkeypatch.setattr(discovery, "calling_family", lambda: "electra")
    with pytest.raises(ValueError, match="IDS of paramcount/families/electra"):
        registry.register(arch)
    with pytest.raises(ValueError, match="IDS of paramcount/families/electra"):
        registry.register(dataclasses.replace(arch, id="bert"), replace=True)


def test_preset_files_sit_in_their_family_folders():
    """A preset name is ``families/<name>/presets.toml`` or one ``families/<f>/<name>.toml``; each
    file is some architecture's (none is left unread)."""
    files = sorted(p for p in discovery.HERE.glob("*/*.toml") if p.name != discovery.ABOUT)
    used = set()
    for arch in registry.architectures().values():
        names = arch.presets if isinstance(arch.presets, tuple) else (arch.presets,)
        used |= {discovery.preset_file(str(n)) for n in names if n and not str(n).endswith(".toml")}
    assert None not in used
    assert set(files) == used, set(files) ^ used


def test_a_folders_about_toml_gives_its_words_free_keys_and_examples():
    """Mistral's declaration spells out no title, source, free key or example: its about.toml
    does, and the architecture and its config table carry them (the file's word over the
    lineage's default)."""
    arch = registry.get("mistral")
    about = discovery.about("mistral")["mistral"]
    assert (arch.title, arch.source) == (about["title"], about["source"])
    assert dict(arch.examples) == about["examples"] and list(arch.examples) == list(about["examples"])
    assert arch.mapping is not None and set(about["free"]) <= arch.mapping.free
    code = (discovery.HERE / "mistral" / "__init__.py").read_text(encoding="utf-8")
    assert "title=" not in code and "examples=" not in code and "free=" not in code


def test_an_about_entry_of_an_undeclared_id_or_unknown_key_is_refused(tmp_path, monkeypatch):
    """about.toml says things of the folder's own ids only, under the keys a declaration takes."""
    for family in discovery.folders():
        discovery.about(family)  # every packaged file is well formed
    monkeypatch.setattr(discovery, "HERE", tmp_path)
    for name, entry in (("stray_id", '[other]\ntitle = "t"\n'),
                        ("stray_key", '[stray_key]\ntitel = "t"\n')):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f'IDS = ("{name}",)\n', encoding="utf-8")
        (tmp_path / name / discovery.ABOUT).write_text(entry, encoding="utf-8")
        with pytest.raises(ValueError, match="is not an id of its IDS with keys among"):
            discovery.about(name)


def test_an_architecture_without_words_is_refused():
    """A title, source and counting sentence are owed: by the code, or by a built-in family's
    about.toml (a user's architecture has none)."""
    from paramcount.model.components import embedding

    with pytest.raises(ValueError, match="no_words: no title"):
        registry.Architecture(id="no_words", formula=embedding("token", symbols.v),
                              required=(symbols.v,), reference="none:none")


def test_get_imports_only_the_module_the_map_names():
    """No guessing from the id's prefix and no import-everything fallback: ``lstm_lm`` (an id
    with no folder of its name) loads rnn_lm and nothing else (the lineages' shared rows,
    ``_lineages``, are no family)."""
    proc = _fresh("""
        import sys
        from paramcount.model import registry
        registry.get("lstm_lm"); registry.get("transformer")
        print(sorted(m.rpartition(".")[2] for m in sys.modules
                     if m.startswith("paramcount.families.") and ".families._" not in m))
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['rnn_lm', 'transformer_seq2seq']"


def test_entry_point_group_finds_a_users_architecture(tmp_path, monkeypatch):
    """An installed package declares its architecture in the ``paramcount.architectures`` group
    (a fake distribution on sys.path here): ``get`` and ``architectures`` find it."""
    (tmp_path / "fake_paramcount_arch.py").write_text(textwrap.dedent("""
        import dataclasses
        from paramcount.model import registry
        register = registry.register(dataclasses.replace(
            registry.get("gpt2"), id="fake_ep_arch", presets=None, keras_hub_metadata=False))
    """))
    dist = tmp_path / "fake_paramcount_arch-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-paramcount-arch\n"
                                   "Version: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[{registry.ENTRY_POINTS}]\n"
                                           "fake_ep_arch = fake_paramcount_arch\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        arch = registry.get("fake_ep_arch")
        assert arch.id == "fake_ep_arch" and arch.total() == registry.get("gpt2").total()
        assert "fake_ep_arch" in registry.architectures()
    finally:
        registry.unregister("fake_ep_arch")
        sys.modules.pop("fake_paramcount_arch", None)


def test_a_users_architecture_cannot_take_a_builtin_id():
    import pytest

    clash = dataclasses.replace(registry.get("gpt2"), title="mine")
    with pytest.raises(ValueError, match="already registered"):
        registry.register(clash)


def test_builtin_symbols_exist_whatever_was_imported():
    proc = _fresh("""
        from paramcount.core import symbols
        print(symbols.info("tied").flag, symbols.info("d_fe").name, symbols.info("r_w").name)
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "d_fe", "r_w"]


def test_symbols_of_issue_13_modules_and_per_layer_widths_exist_whatever_was_imported():
    """Symbols main's new modules declared beside their code (L_dense, v_out, n_mels ...) and
    the per-layer widths (d_h3, d_enc1) mean the same, and unknown names say the same, before
    and after the modules that use them are imported."""
    code = """
        from paramcount.core import symbols
        from paramcount.core.errors import UnknownSymbolError
        print(symbols.info("L_dense").zero_ok, symbols.info("v_out").name,
              symbols.info("n_mels").name, symbols.info("d_h3").description)
        try:
            symbols.info("d_x9q")
        except UnknownSymbolError as exc:
            print(str(exc).count("d_h"))
    """
    before = _fresh(code)
    after = _fresh("import paramcount.families.rnn_lm, paramcount.families.seq2seq\n"
                   + textwrap.dedent(code))
    assert before.returncode == 0 and after.returncode == 0, before.stderr + after.stderr
    assert before.stdout == after.stdout
    assert before.stdout.splitlines()[0].startswith("True v_out n_mels units of recurrent layer 3")


def test_a_symbol_of_another_family_is_named_as_such_in_a_fresh_process():
    """``tied`` is a symbol (of Llama, the RNN LMs ...) but not a hyperparameter of gpt2: the
    message says so in a fresh process too (it said "unknown symbol 'tied'" unless Llama had been
    loaded before)."""
    proc = subprocess.run([sys.executable, "-m", "paramcount", "count", "gpt2", "--preset",
                           "gpt2_base_en", "--set", "tied=1"], capture_output=True, text=True,
                          cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin"},
                          timeout=120)
    assert proc.returncode == 2
    assert "tied is not a hyperparameter of gpt2" in proc.stderr
    assert "unknown symbol" not in proc.stderr and "Traceback" not in proc.stderr


def test_architecture_is_hashable_and_prints_its_formula_in_latex():
    gpt2 = registry.get("gpt2")
    assert hash(gpt2) == hash(dataclasses.replace(gpt2))
    assert {gpt2: 1}[registry.get("gpt2")] == 1
    text = sympy.latex(gpt2)
    assert text.startswith(r"N_{\mathrm{gpt2}} = ") and "Architecture(" not in text
    assert gpt2._repr_latex_() == f"$\\displaystyle {text}$"
    assert symbols.info("L").name == "L"


def test_origin_is_where_an_architecture_comes_from_and_family_its_former_name():
    """``family`` meant both the model's folder and "keras_hub"/"paper"; the field is
    ``origin`` now, and a plugin's ``family=`` is still read as it."""
    gpt2 = registry.get("gpt2")
    assert gpt2.origin == "keras_hub" and gpt2.family == gpt2.origin  # declared as family=
    old = dataclasses.replace(gpt2, id="gpt2_old", family="paper", origin="transformer")
    assert old.origin == "paper" and old.family == "paper"
    new = dataclasses.replace(gpt2, id="gpt2_new", origin="paper")
    assert new.origin == "paper" and new.family == "paper"
    assert {a.origin for a in registry.architectures().values()} >= {"keras_hub", "paper"}


class _Inline(ast.NodeTransformer):
    """Reads a name bound to a module's string constant as that string."""

    def __init__(self, text: dict[str, ast.Constant]):
        self.text = text

    def visit_Name(self, node):
        return self.text.get(node.id, node)


def _rows_in_two_families(kinds: set[str]) -> dict[str, list[str]]:
    """Calls of ``kinds`` written alike (as ``ast.unparse`` gives them, a module's string constant
    read as its text) in two family folders, each with the folders."""
    where: dict[str, set[str]] = {}
    for init in sorted(discovery.HERE.glob("*/__init__.py")):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        text = {t.id: node.value for node in tree.body if isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
                for t in node.targets if isinstance(t, ast.Name)}

        inline = _Inline(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in kinds:
                where.setdefault(ast.unparse(inline.visit(node)), set()).add(init.parent.name)
    return {row: sorted(fams) for row, fams in where.items() if len(fams) > 1}


def test_no_table_row_is_written_in_two_families():
    """A row that families of a lineage share (``Field("v", keras="vocabulary_size",
    hf="vocab_size")``) is declared once, in ``paramcount/families/_lineages.py``, and imported:
    the same ``Field(...)`` written in two family folders is a copy that can drift."""
    copies = _rows_in_two_families({"Field"})
    assert not copies, copies


def test_no_restriction_row_is_written_in_two_families():
    """Likewise a restriction row, why and all (``Holds(Divisible(M, M_kv), why=...)``): one
    declared in ``_lineages.py`` (alone, in a group, or made by a function there) and composed,
    ``restrictions=(*GROUP, ROW, ...)``, never retyped in a second family folder; a group made by
    ``.each`` with its why (``Fixed.each(EVEN_HEADS, why=...)``) too."""
    kinds = {"Fixed", "Holds", "Limit", "Requires", "Sets"}
    copies = _rows_in_two_families(kinds)
    copies |= {row: fams for row, fams in _rows_in_two_families({f"{k}.each" for k in kinds}).items()
               if "why=" in row}
    assert not copies, "\n".join(f"{fams}: {row}" for row, fams in copies.items())


def test_the_row_check_sees_a_copy(tmp_path):
    """The check above reads rows as written: two spellings of one row compare equal."""
    import ast

    one = ast.unparse(ast.parse('Field("v", keras="vocabulary_size", hf="vocab_size")'))
    two = ast.unparse(ast.parse("Field('v',\n  keras='vocabulary_size', hf='vocab_size')"))
    assert one == two


def test_a_name_that_is_no_folder_name_finds_no_family():
    """An id is looked up as a folder name: "", a path, a glob or a name longer than the file
    system takes is no family (it was read as families/__init__.py, or raised ENAMETOOLONG)."""
    from paramcount.model import discovery

    for name in ("", ".", "..", "*", "g*", "../bert", "x" * 300, "bert/presets"):
        assert not discovery.declares(name, "bert") and discovery.preset_file(name) is None
    assert discovery.declares("bert", "bert") and discovery.preset_file("bert") is not None


def test_a_family_folder_declares_tables_of_its_own_ids_and_loads_them_alone():
    """A folder's tables (its task heads, its options) are keyed by the ids its IDS declares, so
    no folder holds another family's rows; asking for one loads that file alone, not the family's
    formula (a fresh interpreter: nothing imported before)."""
    for module, name in (("heads", "CLASSES"), ("options", "OPTIONS")):
        for family in discovery.folders():
            table = discovery.family_table(family, module, name)
            assert set(table) <= set(discovery.declared_ids(family)), (family, module)
    assert discovery.family_table("no_such_family", "heads", "CLASSES") == {}
    assert discovery.family_table(None, "heads", "CLASSES") == {}
    done = _fresh("""
        import sys
        from paramcount.model import discovery, heads
        assert heads.classes_of("bert") and discovery.family_of("bert") == "bert"
        print(sorted(m for m in sys.modules if m.startswith("paramcount.families.")))
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["['paramcount.families.bert.heads']"]
