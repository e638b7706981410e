"""Reference builders that skip Keras' output-shape tracing must build exactly the weights the
ordinary build does: the shortcut changes how fast a model is built, never what it holds."""

from __future__ import annotations

import contextlib

import pytest

from paramcount import registry
from paramcount.verify import build_reference, keras_weights


def _signature(arch_id: str, preset: str) -> list[tuple]:
    arch = registry.get(arch_id)
    model = build_reference(arch, arch.resolve(arch.preset(preset).hparams))
    return sorted((w.path, w.shape, w.trainable) for w in keras_weights(model))


@pytest.mark.parametrize("preset", ["tiny", "odd_sizes"])
def test_vit_shape_shortcut_builds_the_same_weights(monkeypatch, preset):
    import reference_models.vit as ref

    fast = _signature("vit", preset)
    monkeypatch.setattr(ref, "_encoder_shape_known", contextlib.nullcontext)
    assert _signature("vit", preset) == fast


@pytest.mark.parametrize("preset", ["tiny", "odd_sizes"])
def test_gpt_oss_shape_shortcut_builds_the_same_weights(monkeypatch, preset):
    import reference_models.gpt_oss as ref

    fast = _signature("gpt_oss", preset)
    monkeypatch.setattr(ref, "shape_only_calls", lambda *classes: contextlib.nullcontext())
    assert _signature("gpt_oss", preset) == fast
