"""The reference models' weights: built without allocating, read, dropped, memoised per process.

The verifier (:mod:`paramcount.analyze.verify`) and the prover's oracle (:mod:`paramcount.analyze.prove.oracle`)
read a Keras reference model's weights through :func:`built_weights`; TensorFlow is imported on
the first build, and nowhere else.

A build makes millions of short-lived objects in cycles (Keras layers, their trackers, the
scratch graph each layer's output shape is traced in). Python's cyclic collector is paused for
the whole of it, the weights read and the model dropped included; then one collection of the
youngest generation reclaims the model, whose objects all sit there still. Left to the
collector's own schedule the same objects were traversed up to three times as they were
promoted through its generations: `verify --all -j 1` spent 5.9 s in collections that way and
2.8 s this way, and peaked at 815 MB against 969 MB. Re-measure with
``benchmarks/build_costs.py``.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, TypeVar

from paramcount.model.weights import Weight

if TYPE_CHECKING:
    from paramcount.model.registry import Architecture

__all__ = ["build_reference", "built_weights", "keras_weights", "memoised", "reference_weights",
           "release"]

_T = TypeVar("_T")


def build_reference(arch: Architecture, hparams: Mapping[str, int]):
    """Import and call the architecture's reference builder (this imports TensorFlow).

    ``arch.reference`` is a ``"module:function"`` string or the builder itself (a callable taking
    the dict of resolved hyperparameters)."""
    import reference_models

    reference_models.import_keras()  # before any builder module imports Keras: muted notices
    if callable(arch.reference):
        builder = arch.reference
    else:
        module, _, func = arch.reference.partition(":")
        builder = getattr(importlib.import_module(module), func)
    return builder(dict(hparams))


def keras_weights(model) -> list[Weight]:
    """Every distinct weight of a model (a tied weight appears once)."""
    seen: set[int] = set()
    out: list[Weight] = []
    for w in model.weights:
        if id(w) in seen:
            continue
        seen.add(id(w))
        # A Keras variable's own shape tuple: `.shape` converts it to a tf.TensorShape first,
        # which costs more than the rest of this loop (0.5 s for GPT-3 175B's 1,540 weights).
        raw = getattr(w, "_shape", None)
        shape = tuple(int(d) for d in (raw if isinstance(raw, tuple) else w.shape))
        out.append(Weight(w.path, math.prod(shape), bool(w.trainable), shape))
    return out


def built_weights(arch: Architecture, hparams: Mapping[str, int], *,
                  scope: Callable[[], contextlib.AbstractContextManager] = contextlib.nullcontext
                  ) -> list[Weight]:
    """The reference model's weights at ``hparams``: built (inside ``scope``, if given), read
    and dropped with the cyclic collector paused, then its objects collected at once (see the
    module's docstring)."""
    was = gc.isenabled()
    gc.disable()
    try:
        weights = _build_and_read(arch, hparams, scope)
    finally:
        if was:
            gc.enable()
    if was:
        gc.collect(0)  # the model's objects, all still in the youngest generation
    return weights


def _build_and_read(arch, hparams, scope) -> list[Weight]:
    # its own frame: the model is unreachable once this returns, before the collection
    with scope():
        model = build_reference(arch, hparams)
    weights = keras_weights(model)
    del model
    release()
    return weights


def release() -> None:
    """After a build: many models are built in one process (verify --all, the report), so drop
    Keras' global name counters and graph state: memory stays flat, layer names stable."""
    import keras

    # free_memory=False: its full gc.collect() costs about a second after a large build
    keras.backend.clear_session(free_memory=False)


_BUILT: dict[tuple, list[Weight]] = {}
_BUILT_MAX = 512


def memoised(key: tuple, build: Callable[[], _T]) -> _T:
    """``build()``, once per process for each ``key`` (the last ``_BUILT_MAX`` kept)."""
    if key not in _BUILT:
        if len(_BUILT) >= _BUILT_MAX:
            _BUILT.pop(next(iter(_BUILT)))
        _BUILT[key] = build()  # type: ignore[assignment]
    return _BUILT[key]  # type: ignore[return-value]


def reference_weights(arch: Architecture, hparams: Mapping[str, int]) -> list[Weight]:
    """The weights of the reference model at ``hparams``, built once per process.

    Keyed by the builder and the resolved hyperparameters: presets that differ only in their
    trained weights (a fine-tune, an instruction-tuned twin) share one build. The formula is not
    part of the key, so a broken formula is still compared against a real build.
    """
    return memoised((arch.reference, tuple(sorted(hparams.items()))),
                    lambda: built_weights(arch, hparams))
