"""Llama 2: KerasHub's LlamaBackbone, built from constructor arguments (nothing downloaded).

``build`` is shared by the Llama-lineage builders (Llama 3, Mistral, Mixtral, Qwen...): it builds
a backbone without allocating weights and with Python's cyclic garbage collector paused. Keras
creates some 15 tracked objects per weight while it builds; with SymPy's caches already in the
heap, the collector's passes over them cost more than the build itself at 70B+ sizes (5.2 s
against 1.7 s for Llama 2 70B, measured).
"""

from __future__ import annotations

import contextlib
import gc

import keras_hub

from reference_models._build import stateless_backbone


@contextlib.contextmanager
def _gc_paused():
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def build(cls, **kwargs):
    with _gc_paused():
        return stateless_backbone(cls, **kwargs)


def backbone(hp: dict[str, int], cls=None):
    return build(
        cls or keras_hub.models.LlamaBackbone,
        vocabulary_size=hp["v"],
        num_layers=hp["L"],
        num_query_heads=hp["M"],
        num_key_value_heads=hp["M_kv"],
        hidden_dim=hp["d_e"],
        intermediate_dim=hp["d_f"],
        tie_word_embeddings=bool(hp["tied"]),
    )
