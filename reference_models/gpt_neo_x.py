"""GPT-NeoX: KerasHub's GPTNeoXBackbone (rotary_percentage and max_sequence_length hold no
weights: the defaults are used)."""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table


def backbone(hp: dict[str, int]):
    return from_table("gpt_neo_x", keras_hub.models.GPTNeoXBackbone, hp)
