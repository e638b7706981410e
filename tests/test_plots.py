"""Plots: the classification rule, the class totals, deterministic SVG, the report's links."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest

from paramcount.model import registry
from paramcount.output import plots, report


@pytest.mark.parametrize(("path", "cls"), [
    ("gpt2.embeddings.token", "embeddings"),
    # a d_emb → d_e matrix applied to every token, not a table: context says the same
    ("albert.embeddings.projection", "other"),
    ("bert.embeddings.norm", "norms"),                # a norm wherever it sits
    ("llama.blocks.attention_norm", "norms"),         # norm before attention in one name
    ("gpt2.blocks.self_attention.output", "attention"),
    ("llama.blocks.ffn.gate", "feed-forward"),
    ("mixtral.blocks.moe.experts.expert.up", "feed-forward"),
    ("lstm_lm.rnn.layer_1.output", "recurrent"),
    ("bert_masked_lm.mlm_head.output_bias", "head"),
    ("bert.pooler", "head"),
])
def test_classify_by_component_kinds(path, cls):
    assert plots.classify(path) == cls


def test_kinds_not_names_decide_and_a_leaf_without_one_is_other():
    from paramcount.core.formula import group, leaf
    from paramcount.core.symbols import d_e, v
    from paramcount.model.registry import Architecture

    arch = Architecture(
        id="shapes", title="t", source="s", reference="x:y", counting="c", required=(v, d_e),
        formula=group("shapes",
                      group("encoder", group("layer_1", leaf("forget", d_e), leaf("input", d_e)),
                            kind="recurrent"),
                      group("mix", leaf("attention_in", d_e), leaf("norm", 1, kind="norm"),
                            leaf("odd", 2)),
                      leaf("embedding", v)))
    got = plots.classify_leaves(arch)
    assert got["shapes.encoder.layer_1.input"] == "recurrent"  # its group's kind
    assert got["shapes.mix.attention_in"] == "other"           # a name decides nothing
    assert got["shapes.embedding"] == "other"
    assert plots.composition(arch, {"v": 10, "d_e": 3}) == {
        "embeddings": 0, "attention": 0, "feed-forward": 0, "recurrent": 6, "norms": 1,
        "head": 0, "other": 15}


def test_every_leaf_of_every_architecture_has_a_kind():
    """Set by the component that makes it (or its group): none is left to a name rule."""
    missing = [lf.path for a in registry.architectures().values() for lf in a.formula.leaves()
               if lf.kind is None]
    assert not missing


def test_context_and_plots_agree_on_embeddings():
    from paramcount.analyze import context

    for arch in registry.architectures().values():
        drawn = {p for p, c in plots.classify_leaves(arch).items() if c == "embeddings"}
        trainable = {lf.path for lf in arch.formula.leaves() if lf.term.trainable}
        assert set(context.embedding_paths(arch)) == drawn & trainable, arch.id


@pytest.mark.parametrize("arch_id", sorted(registry.architectures()))
def test_classes_add_up_to_the_total(arch_id):
    arch = registry.get(arch_id)
    hs = arch.hparam_sets()[0]
    parts = plots.composition(arch, hs.hparams)
    assert list(parts) == list(plots.CLASSES)
    assert sum(parts.values()) == arch.count(hs.hparams)


def test_gpt2_shares_are_what_the_formula_says():
    parts = plots.composition("gpt2", registry.get("gpt2").preset("gpt2_base_en").hparams)
    assert parts["embeddings"] == 50257 * 768 + 1024 * 768
    assert parts["attention"] == 12 * 4 * (768 * 768 + 768)
    assert parts["norms"] == 12 * 2 * 2 * 768 + 2 * 768
    assert parts["head"] == parts["other"] == parts["recurrent"] == 0


def test_svg_is_byte_identical_across_renders_and_undated():
    sets = plots.preset_sets(["gpt2", "lstm_lm"])
    first = plots.composition_figure(sets).svg()
    second = plots.composition_figure(sets).svg()  # a new figure, drawn again
    assert first == second
    assert b"<dc:date>" not in first and b"DejaVu Sans" in first  # fixed font, no date
    scaling = plots.scaling_figure(["gpt2", "bert"])
    assert scaling.svg() == plots.scaling_figure(["gpt2", "bert"]).svg()
    assert scaling._repr_svg_().startswith("<?xml")


def test_changed_counts_change_the_svg():
    a = plots.composition_figure(plots.preset_sets(["gpt2"])).svg()
    b = plots.composition_figure(plots.preset_sets(["bert"])).svg()
    assert a != b


def test_matplotlib_is_not_imported_by_count_or_by_classifying():
    code = ("import sys\n"
            "from paramcount.cli.main import main\n"
            "from paramcount.output import plots\n"
            "assert main(['count', 'gpt2', '--preset', 'gpt2_base_en']) == 0\n"
            "plots.composition('gpt2', {'v': 5, 'n': 4, 'd_e': 8, 'M': 2, 'd_f': 8, 'L': 1})\n"
            "heavy = sorted(m for m in ('matplotlib', 'tensorflow', 'keras') if m in sys.modules)\n"
            "assert not heavy, heavy\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr


def _results(*pairs):
    # report_plots needs only which (architecture, preset) pairs were verified
    return [SimpleNamespace(arch=a, name=p) for a, p in pairs]


def test_report_links_the_figures_it_writes_beside_itself(tmp_path):
    gpt2 = registry.get("gpt2")
    results = _results(*[("gpt2", p) for p in gpt2.presets_table()], ("gpt2", "tiny"),
                       ("gpt2_causal_lm", "gpt2_base_en"), ("lstm_lm", "zaremba_2014_medium"))
    section = report.plots_section(results)
    assert "](composition.svg)" in section and "](scaling.svg)" in section
    assert "plots_section" in [s.__name__ for s in report.INDEX]
    out = report.write_report(tmp_path / "r" / "conformance.md", "text\n", results=results)
    assert sorted(p.name for p in out.parent.iterdir()) == [
        "composition.svg", "conformance.md", "scaling.svg"]
    svg = (out.parent / "composition.svg").read_text()
    assert "gpt2 · gpt2_base_en" in svg and "lstm_lm · zaremba_2014_medium" in svg
    assert "gpt2_causal_lm" not in svg and "tiny" not in svg  # shared presets drawn once; no toys
    # One preset per architecture: nothing to draw against d_e and L, so no scaling figure.
    assert plots.report_figure_names(_results(("lstm_lm", "zaremba_2014_large"))) == [
        "composition.svg"]
    assert "(scaling.svg)" not in report.plots_section(_results(("bert", "bert_tiny_en_uncased")))
