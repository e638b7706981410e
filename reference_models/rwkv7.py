"""RWKV-7: KerasHub's RWKV7Backbone."""

from __future__ import annotations

import warnings

import keras_hub

from reference_models._build import stateless_backbone


def backbone(hp: dict[str, int]):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "rwkv_ops not installed": speed only
        return stateless_backbone(
            keras_hub.models.RWKV7Backbone,
            hidden_size=hp["d_e"],
            head_size=hp["d_k"],
            num_layers=hp["L"],
            vocabulary_size=hp["v"],
            intermediate_dim=hp["d_f"],
            gate_lora=hp["r_g"],
            mv_lora=hp["r_v"],
            aaa_lora=hp["r_a"],
            decay_lora=hp["r_w"],
        )
