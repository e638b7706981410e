"""PaliGemma / PaliGemma 2: KerasHub's PaliGemmaBackbone, the ViT unpooled (as every preset),
built from constructor arguments (nothing downloaded).

KerasHub's ``intermediate_dim`` is the gate and up widths together (2·d_f: the table's
``keras_scale``), as in GemmaBackbone. PaliGemma 2's weight-free Gemma 2 options (soft caps,
sliding windows) are set as in Gemma 2 (the table's ``keras_constants``).
"""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table


def backbone(hp: dict[str, int]):
    return from_table("pali_gemma", keras_hub.models.PaliGemmaBackbone, hp)
