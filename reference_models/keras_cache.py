"""The cache a KerasHub causal LM allocates for generation, read without computing.

``<Model>CausalLM._build_cache(token_ids, ...)`` makes its cache of zeros, then seeds it with one
forward (``call_with_cache``). Here the task model is built allocation-free
(:func:`reference_models._build.stateless_task`), the shape of every ``keras.ops.zeros`` that
``_build_cache`` asks for is recorded (a one-element tensor is handed back), and the seeding
forward is stopped before it runs: the shapes are KerasHub's own, at any size, and nothing is
allocated or multiplied. Its own module, so no proof is keyed by it.
"""

from __future__ import annotations

import functools
import inspect

import keras
import keras_hub

from reference_models import table
from reference_models._build import stateless_task

__all__ = ["cache_shapes", "causal_lm_class"]


class _Seeding(Exception):
    """Raised where ``_build_cache`` would run its seeding forward."""


def causal_lm_class(arch_id: str):
    """KerasHub's causal LM over ``arch_id``'s backbone (``MistralBackbone`` → ``MistralCausalLM``),
    or None where KerasHub has none (or its table names no KerasHub class of its own)."""
    from paramcount.model.registry import get

    mapping = get(arch_id).mapping
    if mapping is None or arch_id not in mapping.keras_classes.values():
        return None
    name = table.keras_class(arch_id).__name__.replace("Backbone", "CausalLM")
    return getattr(keras_hub.models, name, None)


@functools.lru_cache(maxsize=4)  # a few contexts of one model: built once (it holds no memory)
def _causal_lm(arch_id: str, hp: tuple[tuple[str, int], ...]):
    """KerasHub's causal LM of ``arch_id`` at ``hp``, built allocation-free; None where there is
    none, or where its backbone is built as no causal LM takes it (EmbeddingGemma's pooled
    outputs)."""
    cls = causal_lm_class(arch_id)
    if cls is None:
        return None
    backbone = table.backbone(arch_id, dict(hp))
    if isinstance(backbone.output, dict):  # pooled outputs (an embedding model): no LM takes it
        return None
    return stateless_task(cls, backbone=backbone, preprocessor=None)


def cache_shapes(arch_id: str, hp: dict[str, int]) -> list[tuple[int, ...]] | None:
    """The shape of each tensor KerasHub's causal LM of ``arch_id`` allocates as its generation
    cache at resolved ``hp`` (with the context ``T`` and the batch ``B``: B prompts of T token
    ids); None where KerasHub has no causal LM for it, or its backbone is built as no causal LM
    takes it (EmbeddingGemma's pooled outputs). Arguments ``_build_cache`` takes beside the
    ids (an image's embeddings, a padding mask) are None: none is read before the seeding
    forward."""
    hp = dict(hp)
    context, batch = hp.pop("T"), hp.pop("B")
    lm = _causal_lm(arch_id, tuple(sorted(hp.items())))
    if lm is None:
        return None
    ids = keras.ops.zeros((batch, context), dtype="int32")
    others = len(inspect.signature(lm._build_cache).parameters) - 1
    shapes: list[tuple[int, ...]] = []
    zeros = keras.ops.zeros

    def recorded(shape, dtype=None):
        shapes.append(tuple(int(x) for x in shape))
        return zeros([1] * len(shape), dtype=dtype)

    def seeding(*args, **kwargs):
        raise _Seeding

    keras.ops.zeros = recorded
    lm.call_with_cache = seeding  # (this model serves only here: it never runs)
    try:
        lm._build_cache(ids, *[None] * others)
    except _Seeding:
        pass
    finally:
        keras.ops.zeros = zeros
    return shapes
