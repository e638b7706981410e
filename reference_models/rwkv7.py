"""RWKV-7: KerasHub's RWKV7Backbone."""

from __future__ import annotations

import warnings

import keras_hub

from reference_models._build import from_table


def backbone(hp: dict[str, int]):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "rwkv_ops not installed": speed only
        return from_table("rwkv7", keras_hub.models.RWKV7Backbone, hp)
