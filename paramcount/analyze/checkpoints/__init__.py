"""Checkpoints as the third reference: the tensors a released checkpoint stores, read from its
header alone, attributed to the formula tree by name.

- :mod:`~paramcount.analyze.checkpoints.tensors`: what a reader returns (a :class:`Checkpoint` of
  :class:`StoredTensor` rows: name, dtype, shape, stored bytes, logical count).
- :mod:`~paramcount.analyze.checkpoints.readers`: which format a path is, and the refusals (a pickle);
  :mod:`~paramcount.analyze.checkpoints.safetensors_io` (a file, or shards with their index),
  :mod:`~paramcount.analyze.checkpoints.gguf_io` (llama.cpp's GGUF, through the ``gguf`` package) and
  :mod:`~paramcount.analyze.checkpoints.keras_io` (a KerasHub preset's ``model.weights.h5``, through
  h5py). Only headers are read; no module here imports torch or TensorFlow.
- :mod:`~paramcount.analyze.checkpoints.quant`: logical counts from packed layouts (GPTQ, AWQ,
  bitsandbytes 4-bit) and GGUF's block types.
- :mod:`~paramcount.analyze.checkpoints.gguf_names`: the GGUF name tables, per GGUF
  architecture; :mod:`~paramcount.analyze.checkpoints.layouts`: published layouts transformers
  loads into other tensors (experts stored one per tensor); both, like the formats checked per
  family (:mod:`~paramcount.analyze.checkpoints.coverage`) and the published headers, are
  declared in each family's folder (``families/<family>/checkpoints.py``, in the terms of
  :mod:`paramcount.model.checkpoint_tables`) and merged here, no family named;
  :mod:`~paramcount.analyze.checkpoints.keras_names`: a ``.weights.h5``'s names → Keras variable
  paths (imports TensorFlow; ``verify`` only).
- :mod:`~paramcount.analyze.checkpoints.check`: attribution (``verify.compare`` on the transformers tree)
  and the stored-versus-built terms; :mod:`~paramcount.output.checkpoints` the text, and
  :mod:`~paramcount.output.report_checkpoints` the report's "Checkpoints" section, with the
  published figures of :mod:`~paramcount.analyze.checkpoints.published`.
"""

from __future__ import annotations

from paramcount.analyze.checkpoints.readers import read
from paramcount.analyze.checkpoints.tensors import Checkpoint, StoredTensor

__all__ = ["Checkpoint", "StoredTensor", "read"]
