"""Reference builders that skip Keras' output-shape tracing must build exactly the weights the
ordinary build does: the shortcut changes how fast a model is built, never what it holds."""

from __future__ import annotations

import contextlib

import pytest

from paramcount.analyze.verify import build_reference, keras_weights
from paramcount.model import registry


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


@pytest.mark.parametrize(("arch_id", "preset"), [
    ("gpt2", "tiny"), ("bert_masked_lm", "tiny"), ("t5", "odd_sizes"), ("whisper", "odd_sizes"),
    ("gemma3", "odd_sizes"), ("qwen3_moe", "tiny_dense_blocks_tied"),
    ("lstm_lm", "tied_bidirectional"), ("tst", "pretraining"),
])
def test_lean_keras_builds_build_the_same_weights(monkeypatch, arch_id, preset):
    """reference_models._build's lean scope (signatures asked once per function, plain values
    past Keras' tracker) builds the weights the plain Keras build does, and puts back every
    function it replaced."""
    from keras.src.layers import layer
    from keras.src.ops import operation
    from keras.src.utils import tracking

    from reference_models import _build

    saved = (tracking.Tracker.track, layer.Layer.__setattr__, layer.inspect, operation.inspect)
    calls = []
    real = _build._INSPECT.signature
    monkeypatch.setattr(_build._INSPECT, "signature", lambda *a, **k: calls.append(1) or real(*a, **k))
    import keras

    keras.backend.clear_session(free_memory=False)  # the same generated layer names in both
    lean = _signature(arch_id, preset)
    assert calls  # the lean scope was in force
    assert (tracking.Tracker.track, layer.Layer.__setattr__, layer.inspect,
            operation.inspect) == saved  # put back after the build
    # and nothing kept past it: functions made afresh for each build (Moonshine's reference)
    # held every build of a proof alive, 19.5 GB before the OOM killer ended it
    assert not _build._INSPECT._signatures and not _build._INSPECT._argspecs
    monkeypatch.setattr(_build, "LEAN", False)
    keras.backend.clear_session(free_memory=False)
    assert _signature(arch_id, preset) == lean and len(lean) > 3
