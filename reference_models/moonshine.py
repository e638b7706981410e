"""Moonshine: KerasHub's MoonshineBackbone, built from the family's table (nothing
downloaded)."""

from __future__ import annotations

import contextlib

import keras_hub
from keras_hub.src.models.moonshine import moonshine_backbone

from reference_models._build import from_table


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
    # The table gives every argument but the rotary factor (no symbol holds a float): KerasHub's
    # own backbone whenever one factor gives both counts (its default 0.62 for every preset);
    # otherwise its layers with a factor per stack.
    for factor in (0.62, _factor_for(want[0], head_enc)):
        if (_rotary_count(head_enc, factor), _rotary_count(head_dec, factor)) == want:
            return from_table("moonshine", keras_hub.models.MoonshineBackbone, hp,
                              partial_rotary_factor=factor)
    with _factor_per_stack({"encoder_rotary_embedding": _factor_for(want[0], head_enc),
                            "decoder_rotary_embedding": _factor_for(want[1], head_dec)}):
        return from_table("moonshine", keras_hub.models.MoonshineBackbone, hp)
