"""paramcount.testing.assert_param_count and its pytest plugin, as a user's project uses them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from paramcount.core.errors import HyperparameterError
from paramcount.testing import assert_param_count, param_count_check

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "pytest_helper"
TINY = dict(v=100, n=16, d_e=32, M=4, d_f=64, L=2)


def test_the_example_project_tests_pass(monkeypatch):
    """examples/pytest_helper, run as its owner would (pytest on the folder, the fixture coming
    from the installed plugin, entry point pytest11); in this process, where TensorFlow is
    already imported, to keep the test run short: in this process alone too (``-n 0``: the
    folder has no settings of its own, so pytest finds this project's, whose ``-n auto`` would
    start workers that each import TensorFlow again)."""

    class Outcomes:
        def __init__(self):
            self.passed, self.failed = [], []

        def pytest_runtest_logreport(self, report):
            if report.when == "call" or report.outcome == "failed":
                (self.passed if report.passed else self.failed).append(report.nodeid)

    outcomes = Outcomes()
    monkeypatch.syspath_prepend(str(EXAMPLE))
    try:
        code = pytest.main(["-q", "-p", "no:cacheprovider", "-n", "0", "--rootdir", str(EXAMPLE),
                            str(EXAMPLE)], plugins=[outcomes])
    finally:
        for name in ("my_model", "test_my_model"):
            sys.modules.pop(name, None)
    assert code == 0 and not outcomes.failed, outcomes.failed
    assert len(outcomes.passed) == 4


def test_the_plugin_is_registered_for_pytest():
    from importlib.metadata import entry_points

    (ep,) = [e for e in entry_points(group="pytest11") if e.name == "paramcount"]
    assert ep.value == "paramcount.pytest_plugin"


@pytest.fixture(scope="module")
def tiny_gpt2():
    import keras_hub

    def build(**kw):
        args = dict(vocabulary_size=100, max_sequence_length=16, hidden_dim=32, num_heads=4,
                    intermediate_dim=64, num_layers=2)
        return keras_hub.models.GPT2Backbone(**{**args, **kw})

    return build


def test_a_right_model_passes_and_returns_the_figures(tiny_gpt2):
    result = assert_param_count(tiny_gpt2(), "gpt2", **TINY)
    assert result.ok and result.formula == result.reference == 20_864
    assert assert_param_count(tiny_gpt2(), "gpt2", preset="tiny").ok
    assert assert_param_count(tiny_gpt2(), "gpt2", hparams=TINY).ok


def test_a_wrong_model_fails_naming_each_component_and_its_difference(tiny_gpt2):
    with pytest.raises(AssertionError) as failure:
        assert_param_count(tiny_gpt2(intermediate_dim=48, name="my_gpt2"), "gpt2", **TINY)
    message = str(failure.value)
    assert message.splitlines()[:2] == [
        "model 'my_gpt2' does not have the parameters of gpt2 "
        "(v=100, n=16, d_e=32, M=4, d_f=64, L=2, d_k=8, d_v=8, zeta=1):",
        "formula 20,864, model 18,784 (-2,080)",
    ]
    assert "  - gpt2.blocks.ffn.up: formula 4,224, Keras 3,168 (-1,056)" in message
    assert "  - gpt2.blocks.ffn.down: formula 4,160, Keras 3,136 (-1,024)" in message
    assert "attention" not in message  # only what differs


def test_weights_no_component_claims_are_named(tiny_gpt2):
    import keras

    backbone = tiny_gpt2()
    logits = keras.layers.Dense(3, name="my_classifier")(backbone.output[:, 0, :])
    model = keras.Model(backbone.input, logits)
    check = param_count_check(backbone, "gpt2", **TINY)
    assert check.ok
    with pytest.raises(AssertionError, match=r"unclaimed Keras weight .*my_classifier/kernel "
                                             r"\[32, 3\] \(96\)"):
        assert_param_count(model, "gpt2", **TINY)


def test_bad_hyperparameters_are_reported_as_such(tiny_gpt2):
    with pytest.raises(HyperparameterError, match="positive integer"):
        assert_param_count(tiny_gpt2(), "gpt2", **{**TINY, "M": 0})


def test_heads_that_do_not_split_the_width_are_floored_as_keras_hub_does(tiny_gpt2):
    # 32 // 3 = 10: three heads of 10, so the attention is 30 wide inside a 32-wide model
    result = assert_param_count(tiny_gpt2(num_heads=3), "gpt2", **{**TINY, "M": 3})
    assert result.formula == result.reference


def test_full_size_preset_on_a_stateless_model():
    from paramcount.model.registry import get
    from reference_models.gpt2 import backbone

    hp = get("gpt2").resolve(get("gpt2").preset("gpt2_base_en").hparams)
    result = assert_param_count(backbone(hp), "gpt2", preset="gpt2_base_en")
    assert result.reference == 124_439_808


def hand_built_gpt2(**names):
    """GPT-2 built by hand from KerasHub's layers, as a user might: the same weights as
    GPT2Backbone's, under other layer names (``decoder_block_i``, ``final_norm``)."""
    import keras
    import keras_hub

    block, final = names.get("block", "decoder_block_{}"), names.get("final", "final_norm")
    ids = keras.Input((None,), dtype="int32")
    x = keras_hub.layers.TokenAndPositionEmbedding(100, 16, 32, name="embed")(ids)
    for i in range(2):
        x = keras_hub.layers.TransformerDecoder(64, 4, normalize_first=True, activation="gelu",
                                                layer_norm_epsilon=1e-5, name=block.format(i))(x)
    x = keras.layers.LayerNormalization(epsilon=1e-5, name=final)(x)
    return keras.Model(ids, x, name="hand_gpt2")


def test_other_layer_names_are_named_both_ways_with_how_to_map_them():
    with pytest.raises(AssertionError) as failure:
        assert_param_count(hand_built_gpt2(), "gpt2", **TINY)
    message = str(failure.value)
    lines = message.splitlines()
    assert lines[1] == "formula 20,864, model 20,864 (+0)"  # the totals agree: only names differ
    # what the formula's components expected, by name
    assert r"    gpt2.blocks.self_attention.query: transformer_layer_\d+/self_attention/query" in lines
    assert "    gpt2.final_norm: layer_norm" in lines
    # the model's weights no component claimed: the first ten of 34, then how many more
    assert "  - unclaimed Keras weight decoder_block_0/self_attention/query/kernel [32, 4, 8] (1,024)" in lines
    assert sum(line.startswith("  - unclaimed Keras weight") for line in lines) == 10
    assert "  - ... and 24 more unclaimed Keras weights (12,864 parameters)" in lines
    assert "rename=" in message  # and how to map them
    assert len(lines) < 40


def test_rename_maps_the_model_s_names_onto_the_architecture_s():
    rename = {r"decoder_block_(\d+)": r"transformer_layer_\1", "final_norm": "layer_norm"}
    result = assert_param_count(hand_built_gpt2(), "gpt2", rename=rename, **TINY)
    assert result.ok and result.reference == 20_864
    (final,) = [c for c in result.components if c.path == "gpt2.final_norm"]
    assert final.weights == ("layer_norm/gamma", "layer_norm/beta")
