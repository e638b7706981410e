"""What the conformance test does not check for the decoder-only families, across families: which
backbones hold an untied head, and the reference builds' skipped checkpoint tracking. (What one
family's papers and cards say, and how its options change its count, is tested beside the family:
paramcount/families/<f>/<f>_test.py.)"""

from __future__ import annotations

from paramcount.core.symbols import v
from paramcount.model import registry


def test_phi3_and_gpt_oss_backbones_hold_an_untied_head():
    for arch_id in ("phi3", "gpt_oss", "rwkv7"):
        head = registry.get(arch_id).formula.find("head")
        assert head.expr != 0 and v in head.expr.free_symbols


def test_a_reference_build_without_tensorflows_checkpoint_tracking_has_the_same_weights():
    """reference_models._build.stateless skips TensorFlow's checkpoint-dependency tracking (a
    quarter of a build's CPU time): Keras' own tracking still finds every weight, the same paths
    and shapes as a build with TF's tracking, and every model built outside is tracked as ever."""
    import keras
    import keras_hub
    from keras.src.backend.tensorflow.trackable import KerasAutoTrackable

    from paramcount.analyze.verify import keras_weights
    from reference_models import _build

    arch = registry.get("gpt2")
    kw = arch.mapping.keras_kwargs(arch.resolve(arch.preset("tiny").hparams))
    tracked_setattr = KerasAutoTrackable.__setattr__
    fast = _build.stateless_backbone(keras_hub.models.GPT2Backbone, **kw)
    assert KerasAutoTrackable.__setattr__ is tracked_setattr  # restored after the build
    with keras.StatelessScope(initialize_variables=False):
        tracked = keras_hub.models.GPT2Backbone(**kw)
    assert sorted((w.path, w.shape) for w in keras_weights(fast)) == \
        sorted((w.path, w.shape) for w in keras_weights(tracked))
    assert len(keras_weights(fast)) > 10
    assert tracked._trackable_children() and not fast._trackable_children()
