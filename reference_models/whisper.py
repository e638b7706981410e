"""Whisper: KerasHub's WhisperBackbone, built from the family's table (nothing downloaded)."""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table


def backbone(hp: dict[str, int]):
    return from_table("whisper", keras_hub.models.WhisperBackbone, hp)
