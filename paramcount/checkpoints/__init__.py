"""Checkpoints as the third reference: the tensors a released checkpoint stores, read from its
header alone, attributed to the formula tree by name.

- :mod:`~paramcount.checkpoints.tensors`: what a reader returns (a :class:`Checkpoint` of
  :class:`StoredTensor` rows: name, dtype, shape, stored bytes, logical count).
- :mod:`~paramcount.checkpoints.readers`: which format a path is, and the refusals (a pickle);
  :mod:`~paramcount.checkpoints.safetensors_io` (a file, or shards with their index),
  :mod:`~paramcount.checkpoints.gguf_io` (llama.cpp's GGUF, through the ``gguf`` package) and
  :mod:`~paramcount.checkpoints.keras_io` (a KerasHub preset's ``model.weights.h5``, through
  h5py). Only headers are read; no module here imports torch or TensorFlow.
- :mod:`~paramcount.checkpoints.quant`: logical counts from packed layouts (GPTQ, AWQ,
  bitsandbytes 4-bit) and GGUF's block types.
- :mod:`~paramcount.checkpoints.gguf_names`: the declared GGUF name table per family;
  :mod:`~paramcount.checkpoints.layouts`: published layouts transformers loads into other
  tensors (experts stored one per tensor); :mod:`~paramcount.checkpoints.keras_names`: a
  ``.weights.h5``'s names → Keras variable paths (imports TensorFlow; ``verify`` only).
- :mod:`~paramcount.checkpoints.check`: attribution (``verify.compare`` on the transformers tree)
  and the stored-versus-built terms; :mod:`~paramcount.checkpoints.output` the text, and
  :mod:`~paramcount.checkpoints.report_section` the report's "Checkpoints" section, with the
  published figures of :mod:`~paramcount.checkpoints.published`.
"""

from __future__ import annotations

from paramcount.checkpoints.readers import read
from paramcount.checkpoints.tensors import Checkpoint, StoredTensor

__all__ = ["Checkpoint", "StoredTensor", "read"]
