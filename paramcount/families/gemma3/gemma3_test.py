"""Gemma 3: the query-key norm's term, and sliding-window layers' weights."""

from __future__ import annotations

from paramcount.model import registry


def test_gemma3_qk_norm_adds_two_head_width_vectors_per_block():
    arch = registry.get("gemma3")
    hp = arch.resolve(arch.preset("gemma3_1b").hparams)
    assert arch.count(hp) - arch.count({**hp, "qk_norm": 0}) == 2 * hp["L"] * hp["d_k"]


def test_gemma3_sliding_window_layers_hold_the_same_weights_as_global_ones():
    import keras_hub
    from reference_models._build import stateless_backbone

    from paramcount.analyze.verify import keras_weights

    arch = registry.get("gemma3")
    hp = arch.resolve(dict(v=50, d_e=16, M=2, M_kv=1, d_k=8, d_f=24, L=7))
    shapes = []
    for sliding in (True, False):  # the table's constructor arguments (as the reference builds)
        kw = {**arch.mapping.keras_kwargs(hp), "use_sliding_window_attention": sliding}
        model = stateless_backbone(keras_hub.models.Gemma3Backbone, **kw)
        shapes.append(sorted((w.path, w.shape) for w in keras_weights(model)))
    assert shapes[0] == shapes[1]
