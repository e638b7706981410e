"""Bengio et al.'s feedforward LM from plain ``keras.layers``.

Layers: ``embedding`` (shared by the n positions), ``concatenation`` (Flatten), ``hidden_0`` ...
``hidden_{L-1}`` (tanh), ``head`` (Dense(v)); with ``direct`` a bias-free ``direct`` Dense(v) from
the concatenation, added to the head's logits.
"""

from __future__ import annotations

import keras

from reference_models._build import stateless


def ffnn_lm(hp: dict[str, int]) -> keras.Model:
    with stateless():
        context = keras.Input(shape=(hp["n"],), dtype="int32", name="context_ids")
        x = keras.layers.Embedding(hp["v"], hp["d_e"], name="embedding")(context)
        x = keras.layers.Flatten(name="concatenation")(x)
        h = x
        for i in range(hp["L"]):
            h = keras.layers.Dense(hp["d_h"], activation="tanh", name=f"hidden_{i}")(h)
        logits = keras.layers.Dense(hp["v"], name="head")(h)
        if hp["direct"]:
            skip = keras.layers.Dense(hp["v"], use_bias=False, name="direct")(x)
            logits = keras.layers.Add(name="logits")([logits, skip])
        return keras.Model(context, logits, name="ffnn_lm")
