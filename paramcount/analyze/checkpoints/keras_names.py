"""The names a KerasHub preset's ``model.weights.h5`` gives its variables → the variable paths
of the same model built by the Keras reference (in the stateless scope, nothing allocated), so
the formula's Keras patterns claim them. Keras' own saving walk (``saving_lib._save_state``)
is run against a store that records which variable each ``<path>/vars/<i>`` entry holds,
instead of writing it. Imports TensorFlow: only ``verify --checkpoint`` of a Keras preset
reaches it (``count`` compares totals and never does)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from paramcount.analyze.checkpoints.tensors import Checkpoint

__all__ = ["keras_paths", "with_keras_paths"]


def keras_paths(arch, hparams: Mapping[str, int]) -> dict[str, str]:
    """``model.weights.h5`` dataset name → Keras variable path, for ``arch`` at ``hparams``."""
    from keras.src.saving import saving_lib

    from paramcount.analyze.builds import build_reference, release

    model = build_reference(arch, hparams)
    out: dict[str, str] = {}

    class _Entry(dict):
        def __init__(self, path: str) -> None:
            super().__init__()
            self.path = path

        def __setitem__(self, key, value) -> None:
            out[f"{self.path}/vars/{key}"] = getattr(value, "path", "")

    class _Recorder(saving_lib.NpzIOStore):  # the walk accepts Keras' own stores only
        def __init__(self) -> None:  # no file: nothing is written
            pass

        def make(self, path, metadata=None):
            return _Entry(path)

        def get(self, path):
            return _Entry(path)

    saving_lib._save_state(model, weights_store=_Recorder(), assets_store=None, inner_path="",
                           visited_saveables=set())
    del model
    release()
    return out


def with_keras_paths(ckpt: Checkpoint, arch, hparams: Mapping[str, int]) -> Checkpoint:
    paths = keras_paths(arch, hparams)
    return dataclasses.replace(ckpt, tensors=tuple(
        dataclasses.replace(t, logical_name=paths.get(t.name, t.name)) for t in ckpt.tensors))
