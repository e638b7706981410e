"""Speech encoder-decoders (Whisper, Moonshine): what the generic conformance test (every preset
and example verified against Keras) does not cover."""

from __future__ import annotations

import pytest
import sympy

from paramcount.core.symbols import d_e
from paramcount.model import keras_hub_meta, registry
from paramcount.model.components.audio import conv1d, n_mels


def _resolved(arch_id: str, preset: str) -> dict[str, int]:
    arch = registry.get(arch_id)
    return arch.resolve(arch.preset(preset).hparams)


def test_conv1d_counts_kernel_width_times_channels_plus_bias():
    assert sympy.expand(conv1d("c", n_mels, d_e, kernel=3).expr - (3 * n_mels * d_e + d_e)) == 0
    assert sympy.expand(conv1d("c", 1, d_e, kernel=127, bias=0).expr - 127 * d_e) == 0


@pytest.mark.parametrize(("preset", "paper_millions"), [
    # Radford et al. 2022, table 1 ("Parameters"): 39M, 74M, 244M, 769M, 1550M, rounded
    ("whisper_tiny_multi", 39), ("whisper_base_multi", 74), ("whisper_small_multi", 244),
    ("whisper_medium_multi", 769), ("whisper_large_multi", 1550),
])
def test_whisper_sizes_round_to_the_papers(preset, paper_millions):
    arch = registry.get("whisper")
    hp = _resolved("whisper", preset)
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
    hp = _resolved("whisper", preset)
    assert keras_hub_meta.published_params(preset) == (
        arch.count(hp) + arch.count_nontrainable(hp))
    assert arch.count_nontrainable(hp) == hp["n_audio"] * hp["d_e"]


def test_whisper_base_en_figure_is_gpt2_base():
    assert (keras_hub_meta.published_params("whisper_base_en")
            == keras_hub_meta.published_params("gpt2_base_en") == 124_439_808)
    assert "GPT-2" in registry.get("whisper").preset("whisper_base_en").keras_hub_differs


@pytest.mark.parametrize(("preset", "rot"), [("moonshine_tiny_en", 11),
                                             ("moonshine_base_en", 16)])
def test_moonshine_rotary_default_is_keras_hubs_partial_factor(preset, rot):
    hp = _resolved("moonshine", preset)
    # MoonshineRotaryEmbedding: int(head_dim · 0.62) // 2 frequencies per stack
    assert hp["f_rot"] == hp["f_rot_dec"] == int(hp["d_k"] * 0.62) // 2 == rot
    arch = registry.get("moonshine")
    # KerasHub's published figure is the trainable count alone
    assert keras_hub_meta.published_params(preset) == arch.count(hp)
    assert arch.count_nontrainable(hp) == 2 * rot


def test_moonshine_feed_forward_width_is_the_expansion_factor():
    hp = registry.get("moonshine").resolve(dict(v=10, d_e=12, M=3, L_enc=1, x_f=3))
    assert hp["d_f"] == 36


def test_moonshine_swiglu_doubles_the_first_projection():
    arch = registry.get("moonshine")
    base = dict(v=10, d_e=12, M=3, L_enc=1, L_dec=1)
    gelu = arch.count(arch.resolve(dict(base, glu_dec=0)))
    glu = arch.count(arch.resolve(dict(base, glu_dec=1)))
    d_f = 4 * 12
    assert glu - gelu == 12 * d_f + d_f  # the gate half of dense_1: weights and biases
