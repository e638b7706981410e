"""A user-defined architecture (examples/user_architecture) is treated like a built-in:
formula, count, verify, the report and its plots; loaded by --plugin or $PARAMCOUNT_PLUGINS."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from paramcount.analyze.verify import verify
from paramcount.cli.main import build_parser, main
from paramcount.model import registry
from paramcount.output import report

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = str(ROOT / "examples" / "user_architecture" / "sentiment.py")


@pytest.fixture(scope="module")
def sentiment():
    """Loaded for this module, gone after it (the registry is shared by the whole test run)."""
    before = set(sys.modules)
    registry.load_plugins([PLUGIN], env=False)
    yield registry.get("sentiment")
    registry.unregister("sentiment")
    for name in set(sys.modules) - before:
        if name.startswith("paramcount_plugin_"):
            del sys.modules[name]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def results(sentiment):
    return report.verify_all(["sentiment"])


def test_every_preset_and_example_verifies(sentiment, results):
    assert [r.name for r in results] == ["house_small", "house_base", "tiny", "odd_pooled"]
    for result in results:
        assert result.ok, result.mismatches()
    assert sentiment.count(sentiment.preset("house_base").hparams | {"d_k": 64, "d_v": 64,
                                                                      "zeta": 1}) == HOUSE_BASE


# house_base (v=32000, n=512, d_e=512, M=8, d_f=2048, L=8, c=5, pooler=1), counted by hand from
# the layers the builder creates, not from the formula: keras_hub's TokenAndPositionEmbedding,
# eight keras_hub TransformerEncoder blocks (post-norm; query/key/value/output projections with
# biases, two layer norms of scale and offset, a feed-forward of two biased dense layers), a
# biased d_e -> d_e pooler and a biased d_e -> c classifier.
_d, _f = 512, 2048
_TOKEN = 32000 * _d                                     # 16,384,000
_POSITION = 512 * _d                                    #    262,144
_ATTENTION = 4 * (_d * _d + _d)                         #  1,050,624 (q, k, v, output)
_NORMS = 2 * (2 * _d)                                   #      2,048
_FFN = (_d * _f + _f) + (_f * _d + _d)                  #  2,099,712
_BLOCK = _ATTENTION + _NORMS + _FFN                     #  3,152,384
_POOLER = _d * _d + _d                                  #    262,656
_CLASSIFIER = _d * 5 + 5                                #      2,565
HOUSE_BASE = _TOKEN + _POSITION + 8 * _BLOCK + _POOLER + _CLASSIFIER
assert HOUSE_BASE == 42_130_437  # the figure README and the report state


def test_a_wrong_user_formula_fails_verification(sentiment):
    from paramcount.core.symbols import d_e
    from paramcount.model.components import dense

    c = sentiment.formula.find("head").expr.free_symbols - {d_e}
    broken = dataclasses.replace(sentiment, id="sentiment_broken", formula=sentiment.formula.replace(
        "head", dense("head", d_e, *c, bias=0, match="classifier")))
    result = verify(broken, preset="tiny")
    assert not result.ok
    assert result.mismatches() == ["sentiment.head: formula 96, Keras 99 (+3)"]


def test_cli_formula_and_count_with_plugin_option(capsys, sentiment):
    code, out, _ = run(capsys, "--plugin", PLUGIN, "formula", "sentiment")
    assert code == 0
    assert "c        required  output classes of a classifier head" in out
    assert "c >= 2" in out and "pooler   optional" in out
    code, out, _ = run(capsys, "count", "sentiment", "--preset", "house_base", "--plugin", PLUGIN)
    assert code == 0 and "42,130,437" in out
    code, _, err = run(capsys, "count", "sentiment", "--set", "v=10", "n=4", "d_e=8", "M=2",
                       "d_f=8", "L=1", "c=1")
    assert code == 2 and "c (1) must be >= 2 (2) (a classifier needs at least two classes)" in err


def test_cli_verify_with_environment_variable(capsys, monkeypatch, sentiment):
    monkeypatch.setenv(registry.PLUGINS_ENV, PLUGIN)
    code, out, _ = run(capsys, "verify", "sentiment", "--preset", "odd_pooled", "--quiet")
    assert code == 0 and out.strip().endswith("1 match, 0 mismatch")


def test_prove_treats_it_like_a_builtin(capsys, sentiment):
    commands = build_parser()._subparsers._group_actions[0].choices
    if "prove" not in commands:
        pytest.skip("no prove command in this version")
    code, out, err = run(capsys, "prove", "sentiment")
    assert code == 0, out + err


def test_report_covers_it_with_plots(tmp_path, sentiment, results):
    pages = report.generate(results, vers={"x": "1"})
    text = pages["families/sentiment.md"]
    assert "# paramcount conformance report · sentiment\n" in text and "house_base" in text
    assert "❌" not in "".join(pages.values())
    assert "[sentiment](families/sentiment.md)" in pages["conformance.md"]
    report.write_report(tmp_path / "conformance.md", pages, results=results)
    assert (tmp_path / "families" / "sentiment.md").read_text(encoding="utf-8") == text
    assert (tmp_path / "composition.svg").exists() and (tmp_path / "scaling.svg").exists()
    assert "sentiment · house_base" in (tmp_path / "composition.svg").read_text()


def test_a_plugin_that_cannot_load_is_one_line_and_exit_2(capsys, tmp_path):
    code, _, err = run(capsys, "--plugin", "no_such_module_for_paramcount", "list")
    assert code == 2
    assert err == ("paramcount: error: plugin 'no_such_module_for_paramcount': "
                   "No module named 'no_such_module_for_paramcount'\n")
    bad = tmp_path / "bad.py"
    bad.write_text("raise RuntimeError('boom')\n")
    code, _, err = run(capsys, "--plugin", str(bad), "list")
    assert code == 2 and err.startswith("paramcount: error: plugin") and "RuntimeError: boom" in err


def test_plugin_count_never_imports_tensorflow():
    code = ("import sys\n"
            "from paramcount.cli.main import main\n"
            f"assert main(['--plugin', {PLUGIN!r}, 'count', 'sentiment', '--preset', 'tiny']) == 0\n"
            "assert 'tensorflow' not in sys.modules and 'keras' not in sys.modules\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "20,899" in proc.stdout


def test_string_and_callable_references_both_build(sentiment):
    from paramcount.analyze.verify import build_reference

    hp = sentiment.resolve(sentiment.preset("tiny").hparams)
    by_callable = build_reference(sentiment, hp)
    by_string = build_reference(dataclasses.replace(
        sentiment, reference="reference_models.gpt2:backbone"),
        registry.get("gpt2").resolve(registry.get("gpt2").preset("tiny").hparams))
    assert by_callable.name == "sentiment" and "gpt2" in by_string.name
