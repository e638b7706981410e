"""Whisper: KerasHub's WhisperBackbone, built from constructor arguments (nothing downloaded)."""

from __future__ import annotations

import keras_hub

from reference_models._build import stateless_backbone


def backbone(hp: dict[str, int]):
    return stateless_backbone(
        keras_hub.models.WhisperBackbone,
        vocabulary_size=hp["v"],
        num_layers=hp["L"],
        num_heads=hp["M"],
        hidden_dim=hp["d_e"],
        intermediate_dim=hp["d_f"],
        num_mels=hp["n_mels"],
        # the encoder's position table holds max_encoder_sequence_length // 2 rows (the frames
        # left after the stride-2 convolution)
        max_encoder_sequence_length=2 * hp["n_audio"],
        max_decoder_sequence_length=hp["n"],
    )
