"""Moonshine: KerasHub's MoonshineBackbone, built from constructor arguments (nothing
downloaded)."""

from __future__ import annotations

import contextlib

import keras_hub
from keras_hub.src.models.moonshine import moonshine_backbone

from reference_models._build import stateless_backbone


def _rotary_count(head_dim: int, factor: float) -> int:
    """What MoonshineRotaryEmbedding keeps: ⌊⌊factor·head_dim⌋ / 2⌋ inverse frequencies."""
    return int(head_dim * factor) // 2


def _factor_for(count: int, head_dim: int) -> float:
    # 2·count + ½ is at least ¼ away from any integer, so float rounding cannot move the floor
    return (2 * count + 0.5) / head_dim


@contextlib.contextmanager
def _factor_per_stack(factors: dict[str, float]):
    """KerasHub passes one ``partial_rotary_factor`` to both rotary embeddings; while this is
    active each gets its own (by layer name), so the two frequency counts can be set apart."""
    original = moonshine_backbone.MoonshineRotaryEmbedding

    class PerStack(original):
        def __init__(self, *args, name=None, **kwargs):
            if name in factors:
                kwargs["partial_rotary_factor"] = factors[name]
            super().__init__(*args, name=name, **kwargs)

    moonshine_backbone.MoonshineRotaryEmbedding = PerStack
    try:
        yield
    finally:
        moonshine_backbone.MoonshineRotaryEmbedding = original


def backbone(hp: dict[str, int]):
    head_enc, head_dec = hp["d_e"] // hp["M"], hp["d_e"] // hp["M_dec"]
    want = (hp["f_rot"], hp["f_rot_dec"])
    kwargs = dict(
        vocabulary_size=hp["v"],
        filter_dim=hp["d_e"],  # the front end's width is the model width (HF: hidden_size)
        encoder_num_layers=hp["L_enc"],
        decoder_num_layers=hp["L_dec"],
        hidden_dim=hp["d_e"],
        intermediate_dim=hp["d_f"],  # holds no weight: the width is the expansion factor's
        encoder_num_heads=hp["M"],
        decoder_num_heads=hp["M_dec"],
        feedforward_expansion_factor=hp["x_f"],
        encoder_use_swiglu_activation=bool(hp["glu_enc"]),
        decoder_use_swiglu_activation=bool(hp["glu_dec"]),
        attention_bias=bool(hp["zeta"]),
    )
    # KerasHub's own backbone whenever one factor gives both counts (its default 0.62 for every
    # preset); otherwise its layers with a factor per stack.
    for factor in (0.62, _factor_for(want[0], head_enc)):
        if (_rotary_count(head_enc, factor), _rotary_count(head_dec, factor)) == want:
            return stateless_backbone(keras_hub.models.MoonshineBackbone,
                                      partial_rotary_factor=factor, **kwargs)
    with _factor_per_stack({"encoder_rotary_embedding": _factor_for(want[0], head_enc),
                            "decoder_rotary_embedding": _factor_for(want[1], head_dec)}):
        return stateless_backbone(keras_hub.models.MoonshineBackbone, **kwargs)
