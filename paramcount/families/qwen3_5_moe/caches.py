"""KerasHub's generation cache of this family, where it is not the KV-cache tree
(:mod:`paramcount.model.keras_cache`)."""

from paramcount.model.keras_cache import EVERY_LAYER_BOTH

KERAS_CACHE = {"qwen3_5_moe": EVERY_LAYER_BOTH}
