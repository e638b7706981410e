"""Whisper: the paper's sizes, and KerasHub's figures with the sinusoidal table."""

from __future__ import annotations

import pytest
from tests._shared import resolved

from paramcount.model import keras_hub_meta
from paramcount.model import registry


@pytest.mark.parametrize(("preset", "paper_millions"), [
    # Radford et al. 2022, table 1 ("Parameters"): 39M, 74M, 244M, 769M, 1550M, rounded
    ("whisper_tiny_multi", 39), ("whisper_base_multi", 74), ("whisper_small_multi", 244),
    ("whisper_medium_multi", 769), ("whisper_large_multi", 1550),
])
def test_whisper_sizes_round_to_the_papers(preset, paper_millions):
    arch = registry.get("whisper")
    hp = resolved("whisper", preset)
    # the paper counts OpenAI's model, whose sinusoidal table is a buffer, not a parameter
    total = arch.count(hp)
    assert abs(total / 1e6 - paper_millions) / paper_millions < 0.05


@pytest.mark.parametrize("preset", [
    "whisper_small_en", "whisper_medium_en", "whisper_tiny_multi", "whisper_base_multi",
    "whisper_small_multi", "whisper_medium_multi", "whisper_large_multi",
    "whisper_large_multi_v2",
])
def test_whisper_published_figures_include_the_sinusoidal_table(preset):
    arch = registry.get("whisper")
    hp = resolved("whisper", preset)
    assert keras_hub_meta.published_params(preset) == (
        arch.count(hp) + arch.count_nontrainable(hp))
    assert arch.count_nontrainable(hp) == hp["n_audio"] * hp["d_e"]


def test_whisper_base_en_figure_is_gpt2_base():
    assert (keras_hub_meta.published_params("whisper_base_en")
            == keras_hub_meta.published_params("gpt2_base_en") == 124_439_808)
    assert "GPT-2" in registry.get("whisper").preset("whisper_base_en").keras_hub_differs
