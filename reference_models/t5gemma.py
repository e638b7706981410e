"""KerasHub's T5GemmaBackbone, built from constructor arguments without allocating weights.

Layer types alternate sliding-window and global attention as in Gemma 2 (the table's
``keras_constants``: the window changes no weight). Building 9B-9B's 84 layers is mostly Keras'
per-object bookkeeping.
"""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table


def backbone(hp: dict[str, int]):
    return from_table("t5gemma", keras_hub.models.T5GemmaBackbone, hp)
