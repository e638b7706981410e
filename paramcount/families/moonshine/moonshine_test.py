"""Moonshine: the rotary default, the feed-forward width, and SwiGLU's first projection."""

from __future__ import annotations

import pytest
from tests._shared import resolved

from paramcount.model import keras_hub_meta
from paramcount.model import registry


@pytest.mark.parametrize(("preset", "rot"), [("moonshine_tiny_en", 11),
                                             ("moonshine_base_en", 16)])
def test_moonshine_rotary_default_is_keras_hubs_partial_factor(preset, rot):
    hp = resolved("moonshine", preset)
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
