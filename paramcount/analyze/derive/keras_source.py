"""A user's builder that returns a Keras model: built without allocation, as the verifier builds
Keras models (``reference_models._build.stateless``), in a process that holds TensorFlow and never
torch (:mod:`paramcount.runtime.isolate`). Its weights become templates as a torch model's do
(:mod:`paramcount.analyze.derive.probe`), with Keras's automatic name suffixes folded too: the layers
``dense``, ``dense_1``, ``dense_2`` are one template ``dense_*`` naming three weights (the session
is cleared before each build, so the suffixes start afresh)."""

from __future__ import annotations

import re
from typing import Any

from paramcount.analyze.derive.probe import Built, DeriveError, Observed, Source

__all__ = ["KerasSource", "fold"]

_SUFFIX = re.compile(r"^(.*?)_\d+$")


def fold(path: str) -> str:
    """``functional/dense_2/kernel`` → ``functional.dense_*.kernel``; a segment of digits is
    ``*`` as in torch's templates."""
    out = []
    for seg in path.split("/"):
        m = _SUFFIX.match(seg)
        out.append("*" if seg.isdigit() else f"{m.group(1)}_*" if m else seg)
    return ".".join(out)


class KerasSource(Source):
    """A builder from a mapping of field values to a Keras model."""

    framework = "keras"

    def model(self, cfg):
        import reference_models

        reference_models.import_keras()
        import keras

        from reference_models._build import stateless

        keras.backend.clear_session(free_memory=False)
        assert self.builder is not None
        with stateless():
            model = self.builder(cfg)
        if not isinstance(model, keras.layers.Layer):
            raise DeriveError(f"the builder returned {type(model).__name__}, not a Keras model "
                              "(or a torch nn.Module)")
        return model

    def weights(self, cfg) -> list:
        from paramcount.analyze.verify import keras_weights

        return keras_weights(self.model(cfg))

    def observe(self, overrides) -> Built:
        items: dict[str, list[Any]] = {}
        for w in self.weights(self.config(overrides)):
            role = "trainable" if w.trainable else "frozen"
            items.setdefault(fold(w.path), []).append((tuple(w.shape), role))
        built: Built = {}
        for key, seen in items.items():
            shapes = {s for s, _ in seen}
            roles = {r for _, r in seen}
            if len(roles) > 1:
                raise DeriveError(f"{key}: weights of one template differ in trainability")
            built[key] = Observed(len(seen), seen[0][0] if len(shapes) == 1 else (-1,),
                                  roles.pop())
        return built
