"""One way to restrict a hyperparameter (issue 18 §4): a declared list of restrictions, from which
the architecture's, the table's and the transformers declaration's attributes are derived."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from paramcount.core import restrictions
from paramcount.core.formula import Term
from paramcount.core.hparams import Divisible, Relation
from paramcount.core.restrictions import Derived, DerivedMap, Fixed, Holds, Limit, Requires, Sets
from paramcount.core.symbols import M, M_kv, d_e, d_k, v
from paramcount.model import frameworks, registry
from paramcount.model.frameworks import Always, Transformers
from paramcount.model.mapping import Field, Require, Table
from paramcount.runtime.cache import declared

ROWS = (
    Fixed(d_k, d_e / M, why="the head width is the width over the heads"),
    Holds(Divisible(M, M_kv), why="key/value heads are shared by whole groups"),
    Holds(Divisible(d_k, 2), binds="transformers", why="rotary pairs"),
    Holds(Divisible(d_e, 4), binds="proof", why="a sub-space the proof carries"),
    Limit(Relation(d_e, ">=", M), why="narrower, the class builds another model"),
    Fixed(M_kv, 1, binds="transformers", why="the class has one key/value head"),
    Requires("attention_bias", (False,), why="the formula has no attention biases"),
    Sets("attention_bias", False),
    Requires("use_bias", (False,), binds="keras", absent_ok=False, why="no biases"),
    Sets("use_bias", False, binds="keras"),
    Requires("tie_word_embeddings", (True,), classes=("XForCausalLM",), why="tied head"),
)


def _formula() -> Term:
    return Term("toy", children=(Term("emb", expr=v * d_e, match="emb"),
                                 Term("heads", expr=M * M_kv * d_k, match="heads")))


def _table(**kw) -> Table:
    return Table(fields=(Field("v", hf="vocab_size"),), model_type="toy", **kw)


def test_each_old_attribute_is_derived_from_the_one_list():
    """The list gives what the nine old spellings gave, in declared order, field for field."""
    old_table = _table(
        requires=(Require("attention_bias", (False,), "the formula has no attention biases"),
                  Require("use_bias", (False,), "no biases", "keras", False),
                  Require("tie_word_embeddings", (True,), "tied head", classes=("XForCausalLM",))),
        hf_constants={"attention_bias": False}, keras_constants={"use_bias": False})
    assert declared(_table(restrictions=ROWS)) == declared(old_table)
    old_ref = Transformers(weights={}, constraints=(Divisible(d_k, 2),), limits=(Relation(d_e, ">=", M),),
                           always=(Always(M_kv, 1, "the class has one key/value head"),),
                           prove_within=(Divisible(d_e, 4),))
    assert declared(Transformers(weights={}, restrictions=ROWS)) == declared(old_ref)
    arch = registry.Architecture(id="toy_restricted", title="t", source="s", formula=_formula(),
                                 required=(v, d_e, M, M_kv), reference="x:y", counting="c",
                                 restrictions=ROWS)
    assert dict(arch.fixed) == {d_k: d_e / M}
    assert tuple(arch.constraints) == (Divisible(M, M_kv),)
    assert arch.resolve(dict(v=3, d_e=8, M=4, M_kv=2))["d_k"] == 2
    with pytest.raises(Exception, match="divisible"):
        arch.resolve(dict(v=3, d_e=8, M=4, M_kv=3))


def test_replace_derives_again_and_an_explicit_attribute_wins():
    ref = Transformers(weights={}, restrictions=ROWS)
    assert dataclasses.replace(ref, kwargs={"a": 1}).constraints == (Divisible(d_k, 2),)
    assert dataclasses.replace(ref, restrictions=()).constraints == ()
    other = (Divisible(d_e, 8),)
    assert dataclasses.replace(ref, constraints=other).constraints == other
    # transformers' view of an architecture is built by code: its attributes are given
    arch = registry.Architecture(id="toy_restricted", title="t", source="s", formula=_formula(),
                                 required=(v, d_e, M, M_kv), reference="x:y", counting="c",
                                 restrictions=ROWS, transformers=ref,
                                 mapping=_table(hf_classes={"XForCausalLM": "toy_restricted"}))
    view = frameworks.for_framework(arch, "transformers")
    assert view.constraints == (Divisible(d_k, 2), Relation(d_e, ">=", M), Divisible(M, M_kv))
    assert view.fixed[M_kv] == 1 and M_kv not in view.required


@pytest.mark.parametrize("row", [
    lambda: Fixed(d_k, 1, binds="keras"), lambda: Holds(Divisible(M, M_kv), binds="cuda"),
    lambda: Limit(Divisible(M, M_kv), binds="all"), lambda: Requires("k", (1,), binds="all"),
    lambda: Sets("k", 1, binds="proof")])
def test_a_kind_binds_only_what_it_can(row):
    with pytest.raises(ValueError, match="binds one of"):
        row()


def test_readme_tables_every_kind_with_what_it_binds():
    text = Path(__file__).resolve().parents[1].joinpath("README.md").read_text()
    rows = re.findall(r"^\| `(\w+)\([^`]*\)` \| ([^|]+) \|", text, re.M)
    kinds = {cls.__name__: cls for cls in vars(restrictions).values()
             if isinstance(cls, type) and issubclass(cls, restrictions.Restriction)
             and cls is not restrictions.Restriction}
    tabled = {(k, b.strip("` ")) for k, binds in rows for b in binds.split(",")}
    assert tabled == {(k, b) for k, cls in kinds.items() for b in cls.bindable}


OLD = {"Architecture": {"fixed", "constraints"},
       "Table": {"requires", "hf_constants", "keras_constants"},
       "Transformers": {"constraints", "limits", "always", "prove_within"}}


def _old_spellings(source: str) -> list[str]:
    """The declarations of ``source`` that restrict by an old keyword instead of ``restrictions=``."""
    import ast

    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in OLD:
            old = sorted(k.arg for k in node.keywords if k.arg in OLD[node.func.id])
            if old:
                out.append(f"line {node.lineno}: {node.func.id}({', '.join(f'{k}=' for k in old)})")
    return out


def test_every_family_restricts_by_the_one_list():
    """A family declares its restrictions as one list; a declaration with an old keyword (merged
    from a branch written before) is rewritten by the codemod (issue 18 §4)."""
    families = Path(registry.__file__).resolve().parents[1] / "families"
    bad = {str(f.relative_to(families)): found for f in sorted(families.rglob("*.py"))
           if (found := _old_spellings(f.read_text(encoding="utf-8")))}
    assert not bad, bad
    assert _old_spellings("Table(fields=(), requires=(R,))\nTable(fields=(), restrictions=(R,))\n"
                          "dataclasses.replace(T, constraints=())\n") == ["line 1: Table(requires=)"]


def test_a_constraint_with_a_reason_gives_its_row_the_why():
    reasoned = Relation(d_e, ">=", M, reason="narrower, the class builds another model")
    assert Holds(reasoned).why == reasoned.reason and Limit(reasoned).why == reasoned.reason
    assert Holds(reasoned, why="own").why == "own" and Holds(Divisible(M, M_kv)).why == ""


def _rows_without_why() -> dict[str, list[str]]:
    """Per family folder, the rows of its architectures, tables and transformers declarations
    (and their variants) that say no why."""
    from paramcount.model import discovery

    folder = {i: f for f in discovery.folders() for i in discovery.declared_ids(f)}
    out: dict[str, list[str]] = {}
    for aid, arch in sorted(registry.architectures().items()):
        ref = arch.transformers
        objs = (("", arch), ("mapping", arch.mapping), ("transformers", ref),
                *(("variant", x) for x in getattr(ref, "variants", None) or ()))
        for where, obj in objs:
            if obj is None:
                continue
            found = [repr(row) for row in obj.restrictions if not row.why]
            # an attribute given by an old keyword (partial, dataclasses.replace) has no row, no why
            found += [f"{name}= given outside restrictions" for name in _GIVEN[type(obj).__name__]
                      if getattr(obj, name) and not isinstance(getattr(obj, name), (Derived, DerivedMap))]
            out.setdefault(folder.get(aid, aid), []).extend(f"{aid} {where} {x}"[:160] for x in found)
    return {f: rows for f, rows in out.items() if rows}


_GIVEN = {"Architecture": ("fixed", "constraints"), "Table": ("requires", "hf_constants", "keras_constants"),
          "Transformers": ("constraints", "limits", "always", "prove_within")}


def test_every_restriction_says_why():
    """Every row of every registered architecture, table and transformers declaration says why
    it holds (what the framework builds or the formula assumes)."""
    assert _rows_without_why() == {}


def test_a_row_binding_forward_is_a_note_not_a_constraint():
    """What only a forward pass needs (rotary pairs): not checked on a set, a note beside its
    count where broken, and the proof's range."""
    note = Holds(Divisible(d_e, 2 * M), binds="forward", why="rotary pairs")
    arch = registry.Architecture(id="toy_noted", title="t", source="s", formula=_formula(),
                                 required=(v, d_e, M, M_kv, d_k), reference="x:y", counting="c",
                                 restrictions=(note,))
    assert arch.constraints == () and arch.notes == (note,)
    hp = arch.resolve(dict(v=5, d_e=35, M=5, M_kv=5, d_k=7))  # not refused
    assert restrictions.broken_notes(arch.notes, arch.values(hp)) == [
        "d_e (35) is not divisible by 2·M (10): rotary pairs"]
    assert restrictions.broken_notes(arch.notes, arch.values({**hp, "d_e": 30})) == []


def test_a_transformers_row_binding_forward_is_a_note_of_its_view_only():
    """A forward need of one framework's class (XLNet's arange(0, d_model, 2) in transformers'
    forward) is a note of that framework's view, not of the architecture, so the Keras proof
    keeps every width. Such a row was accepted in a Transformers declaration and dropped."""
    from paramcount.model.frameworks import for_framework

    arch = registry.get("xlnet")
    rows = [r for r in arch.transformers.restrictions if r.binds == "forward"]
    assert rows and arch.notes == ()
    assert for_framework(arch, "transformers").notes == tuple(rows)
