"""KerasHub's generation cache of this family, where it is not the KV-cache tree
(:mod:`paramcount.model.keras_cache`)."""

from paramcount.core.symbols import H
from paramcount.core.symbols import P
from paramcount.core.symbols import T
from paramcount.model.keras_cache import KerasCache

KERAS_CACHE = {"pali_gemma": KerasCache(
    why="PaliGemmaCausalLM caches the image's (H/P)² tokens beside its T text tokens, where "
        "transformers' T positions hold them",
    context=T + H**2 / P**2)}
