"""Gemma / Gemma 2: KerasHub's GemmaBackbone, built from constructor arguments (nothing
downloaded).

KerasHub's ``intermediate_dim`` is the gate and up widths together (2·d_f: the table's
``keras_scale``). Gemma 2's options that hold no weights (soft caps, sliding windows) are set as
its converter does (the table's ``keras_constants``), so the model built is Gemma 2's; they do
not change the count.
"""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table


def backbone(hp: dict[str, int]):
    return from_table("gemma", keras_hub.models.GemmaBackbone, hp)
