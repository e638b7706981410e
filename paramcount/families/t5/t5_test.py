"""T5: what each option changes, the relative bias, KerasHub's figures, and the fast build's
faithfulness to the ordinary (traced) build."""

from __future__ import annotations

import pytest
from tests._shared import count

from paramcount.model import registry
from paramcount.model.keras_hub_meta import published_params

T5_SMALL = dict(v=32128, d_e=512, M=8, d_k=64, d_f=2048, L=6)


def test_t5_options_change_the_count_by_their_term():
    v1_0 = count("t5", **T5_SMALL, gated=0, tied=1)
    assert v1_0 == 60_506_624  # Raffel et al.'s T5-Small, as KerasHub publishes it
    gate = 2 * 6 * 512 * 2048  # one d_e×d_f matrix in each of L encoder and L decoder blocks
    assert count("t5", **T5_SMALL, gated=1, tied=1) == v1_0 + gate
    assert count("t5", **T5_SMALL, gated=0, tied=0) == v1_0 + 32128 * 512


def test_t5_relative_bias_is_first_layer_only():
    bias = registry.get("t5").formula.find("relative_position_bias")
    assert str(bias.total()) == "2*M*n_b"  # two tables (encoder, decoder), not 2·L
    hp = dict(v=100, d_e=32, M=4, d_f=48, gated=1, tied=0)
    block_pair = (4 + 8) * 32 * 32 + 2 * 3 * 32 * 48 + 5 * 32
    assert count("t5", **hp, L=3) - count("t5", **hp, L=2) == block_pair


def test_t5_default_key_width_is_floor_of_d_e_over_heads():
    arch = registry.get("t5")
    assert arch.resolve(dict(v=10, d_e=512, M=6, d_f=8, L=1))["d_k"] == 85


def test_t5_keras_hub_figures_that_omit_the_untied_head():
    for preset, d in (("t5_1.1_small", 512), ("t5_1.1_large", 1024)):
        hp = registry.get("t5").preset(preset).hparams
        assert published_params(preset) == count("t5", **hp) - 32128 * d
    # ...while the other untied presets include it.
    for preset in ("t5_1.1_base", "t5_1.1_xl", "t5_1.1_xxl", "flan_large_multi"):
        hp = registry.get("t5").preset(preset).hparams
        assert published_params(preset) == count("t5", **hp)


@pytest.mark.parametrize(("gated", "tied"), [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_t5_fast_build_holds_the_traced_build_s_weights(gated, tied):
    import keras
    from reference_models import t5

    from paramcount.analyze.verify import keras_weights

    hp = dict(v=37, d_e=12, M=3, d_k=5, d_f=7, L=2, gated=gated, tied=tied)
    fast = keras_weights(t5.backbone(hp))
    keras.backend.clear_session()
    traced = keras_weights(t5.backbone_traced(hp))
    keras.backend.clear_session()
    assert fast == traced


def test_t5_fast_build_restores_the_classes():
    from keras_hub.src.models.t5.t5_multi_head_attention import T5MultiHeadAttention
    from keras_hub.src.models.t5.t5_transformer_layer import T5TransformerLayer
    from reference_models import t5

    before = {c: dict(c.__dict__) for c in (T5MultiHeadAttention, T5TransformerLayer)}
    with t5.fast_build():
        assert "build" in T5TransformerLayer.__dict__
    assert {c: dict(c.__dict__) for c in before} == before
