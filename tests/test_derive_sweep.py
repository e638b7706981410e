"""The derive sweep: fits the sweep's model types need (a part only some widths make, shapes
that differ by layer kind), and its record and report page, rendered without torch."""

from __future__ import annotations

import random

import pytest

from paramcount.analyze.derive import fit
from tests._shared import torch_side


def test_fit_finds_a_part_present_only_where_a_width_is_nonzero():
    """Cohere2-MoE's shared expert: L weights where num_shared_experts > 0, none at 0."""
    rng = random.Random(5)
    samples = []
    for _ in range(40):
        p = {"layers": rng.randint(1, 12), "shared": rng.choice([0, 0, 1, 2, 3, 5, 8])}
        samples.append((p, p["layers"] if p["shared"] else 0))
    poly = fit.fit(["layers", "shared"], ["layers", "shared"], samples)
    assert poly is not None and ("eq", "shared", "0") in {a for _, m in poly for a in m}
    assert all(fit.evaluate(poly, p) == y for p, y in samples)


def test_fit_finds_a_part_present_only_where_two_widths_differ():
    """ELECTRA's embeddings_project: one weight where embedding_size ≠ hidden_size (unequal at
    the base, so not an equality the base suggests)."""
    rng = random.Random(6)
    samples = []
    for _ in range(40):
        h = rng.choice([8, 16, 32])
        e = rng.choice([8, 16, 32, h])
        samples.append(({"e": e, "h": h}, int(e != h)))
    poly = fit.fit(["e", "h"], ["e", "h"], samples)
    assert poly is not None and all(fit.evaluate(poly, p) == y for p, y in samples)


def _kinds_builder(cfg):
    """Layers of two kinds (``layer_types``: every 3rd full), whose norm is wider in the full
    ones (Gemma 4's k_norm: head_dim in sliding layers, global_head_dim in full ones)."""
    import types

    from torch import nn

    L, k, h, g = cfg["layers"], cfg["every"], cfg["head_dim"], cfg["global_head_dim"]
    kinds = ["full" if (i + 1) % k == 0 else "sliding" for i in range(L)]

    class Layer(nn.Module):
        def __init__(self, kind):
            super().__init__()
            self.norm = nn.LayerNorm(g if kind == "full" else h)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.config = types.SimpleNamespace(layer_types=kinds)
            self.layers = nn.ModuleList(Layer(kind) for kind in kinds)

    return Model()


@torch_side
def test_a_template_whose_shape_differs_by_layer_kind_is_split_and_fitted():
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source

    src = Source(builder=_kinds_builder, model_type="kinds",
                 defaults={"layers": 9, "every": 3, "head_dim": 8, "global_head_dim": 16})
    d = derive(src)
    assert not d.failures, d.failures
    assert {t.name for t in d.templates} >= {"layers.*.norm.weight@full",
                                             "layers.*.norm.weight@sliding"}
    rng = random.Random(7)
    for _ in range(5):
        p = {"layers": rng.randint(1, 20), "every": rng.randint(1, 5),
             "head_dim": rng.randint(1, 30), "global_head_dim": rng.randint(1, 30)}
        full = p["layers"] // p["every"]
        want = 2 * (full * p["global_head_dim"] + (p["layers"] - full) * p["head_dim"])
        assert d.count(p)["trainable"] == want, p


def _rows():
    from paramcount.analyze.derive.sweep import Row

    return [Row("llama", "LlamaForCausalLM", "proven", 6_738_415_616,
                ("hidden_size", "num_hidden_layers"), "4 cases proven"),
            Row("beam", "BeamForCausalLM", "failed", None, ("hidden_size",),
                "model.layers.*.mlp.down_proj.weight: how many weights it names is no such "
                "expression of the fields (hidden_size | intermediate_size)"),
            Row("bert", "BertForMaskedLM", "proven", 109_514_298, ("hidden_size",), "",
                "masked")]


def test_the_record_reads_back_as_the_same_rows(tmp_path):
    from paramcount.analyze.derive import sweep
    from paramcount.output.report_derived import load

    vers = {"torch": "2.13.0", "transformers": "5.23.0", "derive": "0123456789abcdef"}
    path = tmp_path / sweep.RECORD_NAME
    path.write_text(sweep.dumps(_rows(), vers), encoding="utf-8")
    assert load(path) == (_rows(), vers)
    path.write_text("{not json", encoding="utf-8")
    assert load(path) == ([], {})  # a damaged record is no record: the report sweeps anew


def test_rows_name_the_derive_code_they_were_swept_under(tmp_path):
    """A record that re-sweeps some rows says so: each row keeps the digest of the derive code
    it was swept under, the page counts the rows by code, and a record whose rows are not all
    today's is not today's record (``report --sweep`` sweeps it again)."""
    import dataclasses

    from paramcount.analyze.derive import sweep

    rows = [dataclasses.replace(r, derive=d) for r, d in zip(_rows(), ("new", "old", ""), strict=True)]
    vers = {"torch": "2.13.0", "transformers": "5.23.0", "derive": "new"}
    path = tmp_path / sweep.RECORD_NAME
    path.write_text(sweep.dumps(rows, vers), encoding="utf-8")
    assert sweep.loads(path.read_text(encoding="utf-8")) == (rows, vers)
    assert sweep.codes(rows, vers) == ("Rows swept: 1 under the derive code of this record "
                                       "(`new`); 1 under earlier code `old`; 1 under earlier "
                                       "code, before rows named theirs.")
    assert sweep.codes(rows, vers) in sweep.section(rows, vers)


def test_a_report_never_sweeps_unasked(tmp_path, monkeypatch):
    """A cold sweep of every language-model type takes hours: without ``report --sweep`` the
    report shows the record as it was recorded (versions and all), even a stale one."""
    from paramcount.analyze.derive import sweep
    from paramcount.output import report_derived

    def refuse(*args, **kwargs):
        raise AssertionError("swept unasked")

    monkeypatch.setattr(report_derived, "swept", refuse)
    monkeypatch.setattr(report_derived, "PROJECT_RECORD", tmp_path / "none.json")
    stale = {"torch": "0.0", "transformers": "0.0", "derive": "stale"}
    (tmp_path / sweep.RECORD_NAME).write_text(sweep.dumps(_rows(), stale), encoding="utf-8")
    assert report_derived.record_for(tmp_path / "conformance.md") == ((_rows(), stale), False)
    monkeypatch.setattr(report_derived, "PROJECT_RECORD", tmp_path / sweep.RECORD_NAME)
    assert report_derived.record_for(tmp_path / "x.md")[0] == (_rows(), stale)


def test_a_proven_row_with_a_held_field_says_it_is_held():
    """Proven for all values of the others only: the row's status says which fields were held
    (Inkling 2 Loop's loop_layer_index_start, 6 in every build the fit accepted), as the proof
    line does; the page shows it beside 'proven'."""
    from paramcount.analyze.derive import sweep
    from paramcount.analyze.derive.core import Derivation

    d = Derivation("loop", "Loop", {}, {"hidden": 8}, (), (), {"start": "changes a weight"})
    d.explicit = {"hidden": 8, "start": 6}
    assert sweep._held(d) == "; with start = 6 held"
    # a field left None at the config was not varied either: held at None, as the proof line says
    d.unvaried["classifier_dropout"] = "None at this config: give it an integer to derive with it"
    assert sweep._held(d) == "; with classifier_dropout = None, start = 6 held"
    d.unvaried = {}
    assert sweep._held(d) == ""
    row = sweep.Row("loop", "Loop", "proven", 64, ("hidden",), "2 cases proven; with start = 6 "
                    "held")
    assert "| proven; with start = 6 held |" in "\n".join(sweep.section([row], {}))


def test_the_page_renders_from_a_record_without_torch():
    """The page is a function of the recorded rows only: model type, class, parameters at the
    defaults, the hyperparameters found, status or reason, a tally per auto mapping and by
    cause; declared in report.PAGES and so linked from the index."""
    import sys

    from paramcount.output import report, report_derived
    from paramcount.output.report_pages import Inputs

    before = "torch" in sys.modules
    page = next(p for p in report.PAGES if p.path == "language_models.md")
    derived = (_rows(), {"transformers": "5.23.0"})
    text = page.text(Inputs([], {}, [], [], "conformance.md", derived))
    assert "# paramcount conformance report · Every transformers language model" in text
    assert "| `llama` | LlamaForCausalLM | 6,738,415,616 | `hidden_size`, `num_hidden_layers` " \
           "| proven |" in text
    assert "failed: model.layers.*.mlp.down_proj.weight" in text and "hidden_size / inter" in text
    assert "- 1 of 2 causal-LM model types derived and proven (50 %)" in text
    assert "- 1 of 1 masked-LM model types derived and proven (100 %)" in text
    assert "- a layer count that is no such expression: 1" in text
    assert page.tally(Inputs([], {}, [], [], "conformance.md", derived)) == (
        "1 of 2 causal-LM model types derived and proven (50 %); 1 of 1 masked-LM model types "
        "derived and proven (100 %)")
    assert "not recorded" in report_derived.tally(([], {}))
    assert ("torch" in sys.modules) == before  # rendering imported no torch
    assert "derived.json" in report.page_names()


@pytest.mark.slow
def test_the_report_sweeps_in_torch_workers_and_records_the_rows(tmp_path):
    """What `paramcount report --sweep` does when the record is stale: the sweep in torch
    workers (this process may hold TensorFlow), its rows recorded and the page rendered from
    the record."""
    from paramcount.analyze.derive import sweep
    from paramcount.output.report_derived import load, section, swept
    from tests._shared import needs_transformers

    needs_transformers()
    rows, vers = swept(("causal",), n_jobs=2, types=["gpt2", "not_a_model_type", "opt"])
    assert [(r.model_type, r.status) for r in rows] == [("gpt2", "proven"), ("opt", "proven")]
    assert rows[0].total == 124_439_808 and "n_embd" in rows[0].fields
    path = tmp_path / sweep.RECORD_NAME
    path.write_text(sweep.dumps(rows, vers), encoding="utf-8")
    assert load(path) == (rows, vers) and "| `gpt2` | GPT2LMHeadModel | 124,439,808 |" in \
        section(load(path))


def test_a_sweep_of_named_types_keeps_to_each_kind_s_mapping(monkeypatch):
    """``sweep(kinds, types)`` swept every name given under every kind: named masked and seq2seq
    types, it derived t5 as a masked LM too (and a name given twice twice). Each kind takes the
    names its auto mapping has, each once, in the order given."""
    from paramcount.analyze.derive import sweep

    maps = {"masked": ["bart", "bert"], "seq2seq": ["bart", "t5"]}
    monkeypatch.setattr(sweep, "model_types", lambda kinds: maps[kinds[0]])
    monkeypatch.setattr(sweep, "one", lambda t, kind, prove=True: sweep.Row(t, "C", "proven",
                                                                            kind=kind))
    rows = sweep.sweep(("masked", "seq2seq"), ["t5", "bart", "bert", "bart"], prove=False)
    assert [(r.kind, r.model_type) for r in rows] == [
        ("masked", "bart"), ("masked", "bert"), ("seq2seq", "t5"), ("seq2seq", "bart")]
