"""T5Gemma 2: KerasHub's T5Gemma2Backbone without a vision encoder, built from constructor
arguments (nothing downloaded).

The layer types follow Gemma 3's pattern, five sliding-window layers then one global (the table's
``keras_constants``): the kinds hold the same weights, so the pattern does not change the count.
"""

from __future__ import annotations

import keras_hub

from reference_models._build import from_table


def backbone(hp: dict[str, int]):
    return from_table("t5gemma2", keras_hub.models.T5Gemma2Backbone, hp)
