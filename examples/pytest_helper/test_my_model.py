"""Your project's tests: one line per model asserts its parameter count, component by component.

Run with `pytest examples/pytest_helper` (paramcount installed: the `assert_param_count` fixture
comes from its pytest plugin; `from paramcount.testing import assert_param_count` works too).
"""

from __future__ import annotations

import pytest
from my_model import CONFIG, build_backbone, build_chat_model, build_own_blocks

from paramcount.testing import assert_param_count as assert_count

# The paper's symbols for CONFIG (see `paramcount formula gpt2` for what each one means).
HPARAMS = dict(v=CONFIG["vocabulary_size"], n=CONFIG["max_sequence_length"],
               d_e=CONFIG["hidden_dim"], M=CONFIG["num_heads"], d_f=CONFIG["intermediate_dim"],
               L=CONFIG["num_layers"])


def test_chat_model_has_the_gpt2_count(assert_param_count):
    # The fixture, from paramcount's pytest plugin: nothing to import.
    result = assert_param_count(build_chat_model(), "gpt2_causal_lm", **HPARAMS)
    assert result.reference == 168_192  # and the returned Verification holds the figures


def test_backbone_has_the_gpt2_count():
    # The plain helper; a preset (or example set) name gives the values, keywords override them.
    assert_count(build_backbone(), "gpt2", preset="tiny", v=1000, n=64, d_e=64, d_f=256)


def test_a_model_that_differs_from_its_claim_fails_naming_the_component():
    # What a failure says: here the model's feed-forward is narrower than the formula's d_f.
    narrow = build_backbone(intermediate_dim=128)
    with pytest.raises(AssertionError) as failure:
        assert_count(narrow, "gpt2", **HPARAMS)
    message = str(failure.value)
    assert "blocks.ffn.up: formula 33,280, Keras 16,640 (-16,640)" in message
    assert "blocks.ffn.down: formula 32,896, Keras 16,512 (-16,384)" in message


def test_a_model_with_its_own_layer_names_maps_them():
    # Weights are matched by name: rename maps this project's names onto GPT2Backbone's
    # (without it, the failure lists the names each side has, and says so).
    rename = {r"decoder_block_(\d+)": r"transformer_layer_\1", "final_norm": "layer_norm"}
    assert_count(build_own_blocks(), "gpt2", rename=rename, **HPARAMS)
