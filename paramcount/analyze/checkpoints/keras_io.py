"""A KerasHub preset's ``model.weights.h5``: every dataset's name, dtype and shape through h5py
(HDF5 metadata; no dataset is read). Keras saves each layer's variables as
``<attribute path>/vars/<i>`` (``layers/llama_transformer_decoder/_self_attention_layer/
_query_dense/vars/0``); :mod:`paramcount.analyze.checkpoints.keras_names` maps those to the variable
paths the formula's Keras patterns claim. Imports neither TensorFlow nor torch."""

from __future__ import annotations

from pathlib import Path

from paramcount.analyze.checkpoints.tensors import Checkpoint, StoredTensor, check_shape, require
from paramcount.core.errors import InputFileError
from paramcount.runtime import inputs

__all__ = ["read"]


def read(path: Path) -> Checkpoint:
    h5py = require("h5py", "a KerasHub preset's weights")
    inputs.check_regular(path, "checkpoint")  # before HDF5 opens it: a FIFO would block it

    found: list[StoredTensor] = []

    def visit(name: str, obj) -> None:
        if isinstance(obj, h5py.Dataset):
            shape = check_shape(str(path), name, list(obj.shape))
            n = 1
            for d in shape:
                n *= d
            found.append(StoredTensor(name, str(obj.dtype), shape, n * obj.dtype.itemsize, n))

    try:
        with h5py.File(path, "r") as f:
            f.visititems(visit)
    except (OSError, ValueError, KeyError) as exc:
        raise InputFileError(f"{path}: not a readable HDF5 weights file: {exc}") from None
    return Checkpoint(str(path.parent if path.name == "model.weights.h5" else path),
                      "Keras .weights.h5", tuple(found), (path.name,))
