"""A checkpoint path → its header (:class:`~paramcount.analyze.checkpoints.tensors.Checkpoint`): which
format it is, the config beside it, and the refusals. Imports neither torch nor TensorFlow.

- ``*.safetensors``, or a folder holding ``model.safetensors.index.json`` (or safetensors files);
- ``*.gguf``;
- a KerasHub preset folder (``config.json`` with ``model.weights.h5``), or a ``.weights.h5`` file;
- a pickle (``.bin``, ``.pt``, ``.pth``, ``.ckpt``, ``.pkl``) is refused: unpickling runs the
  code the file holds, so it is never opened.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from paramcount.analyze.checkpoints.tensors import Checkpoint
from paramcount.core.errors import InputFileError
from paramcount.runtime import inputs

__all__ = ["PICKLE_SUFFIXES", "read"]

PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle")


def _pickle(path: Path) -> InputFileError:
    return InputFileError(
        f"{path}: a pickle checkpoint ({path.suffix}): loading one executes the code it holds, so "
        "paramcount does not open it; convert it to safetensors (in a trusted environment: "
        "transformers' model.save_pretrained(folder), which writes safetensors) and pass that")


def read(path: str | Path) -> Checkpoint:
    """The header of the checkpoint at ``path``, with the config beside it (when there is one)."""
    p = Path(path)
    if not p.exists():
        raise InputFileError(f"no checkpoint at {p}")
    if p.is_dir():
        return _with_config(_folder(p), p)
    if p.suffix in PICKLE_SUFFIXES:
        raise _pickle(p)
    # a regular file, whatever its format, before any reader opens it (each reader checks the
    # files it opens too: a folder's shards): a FIFO blocks the open, a device is read forever
    inputs.check_regular(p, "checkpoint")
    if p.name.endswith(".safetensors"):
        from paramcount.analyze.checkpoints import safetensors_io

        tensors, meta = safetensors_io.read_file(p)
        ckpt = Checkpoint(str(p), "safetensors", tuple(tensors), (p.name,), metadata=meta)
    elif p.name.endswith(".safetensors.index.json"):
        from paramcount.analyze.checkpoints import safetensors_io

        ckpt = safetensors_io.read_folder(p.parent, p)
    elif p.suffix == ".gguf":
        from paramcount.analyze.checkpoints import gguf_io

        ckpt = gguf_io.read(p)
        if ckpt.config is not None and not (p.parent / "config.json").is_file():
            return ckpt  # the metadata give it; a config.json beside overrides them
    elif p.name.endswith(".h5"):
        from paramcount.analyze.checkpoints import keras_io

        ckpt = keras_io.read(p)
    else:
        raise InputFileError(f"{p}: not a checkpoint paramcount reads (a .safetensors file, a "
                             "folder of shards with model.safetensors.index.json, a .gguf file, "
                             "or a KerasHub preset folder with model.weights.h5)")
    return _with_config(ckpt, p.parent)


def _folder(p: Path) -> Checkpoint:
    from paramcount.analyze.checkpoints import safetensors_io

    # exists(), not is_file(): one that is there but no regular file (a FIFO) is refused by
    # the reader, not passed over for another format
    index = p / safetensors_io.INDEX
    if index.exists():
        return safetensors_io.read_folder(p, index)
    if any(p.glob("*.safetensors")):
        return safetensors_io.read_folder(p, None)
    if (p / "model.weights.h5").exists():
        from paramcount.analyze.checkpoints import keras_io

        return keras_io.read(p / "model.weights.h5")
    ggufs = sorted(p.glob("*.gguf"))
    if len(ggufs) == 1:
        from paramcount.analyze.checkpoints import gguf_io

        inputs.check_regular(ggufs[0], "checkpoint")
        return gguf_io.read(ggufs[0])
    pickles = sorted(f for f in p.iterdir() if f.suffix in PICKLE_SUFFIXES)
    if pickles:
        raise _pickle(pickles[0])
    raise InputFileError(f"{p}: no checkpoint in this folder (model.safetensors.index.json, "
                         "*.safetensors, model.weights.h5 or one .gguf file)")


def _with_config(ckpt: Checkpoint, folder: Path) -> Checkpoint:
    """The ``config.json`` beside the checkpoint, and its ``quantization_config``: packed weights
    are unpacked to their logical counts here (:mod:`paramcount.analyze.checkpoints.quant`)."""
    from paramcount.analyze.checkpoints import quant
    from paramcount.analyze.configs import load_json

    cfg = folder / "config.json"
    if not cfg.exists():  # (one that is there but no regular file is refused by load_json)
        return dataclasses.replace(ckpt, tensors=quant.unpack(ckpt.tensors, None))
    data, where = load_json(cfg)
    qc = data.get("quantization_config")
    qc = qc if isinstance(qc, dict) else None
    method = "" if qc is None else str(qc.get("quant_method", "quantized"))
    bits = qc.get("bits") if qc else None
    label = f"{method} {bits}-bit" if isinstance(bits, int) else method
    return dataclasses.replace(ckpt, config=data, config_where=where,
                               tensors=quant.unpack(ckpt.tensors, qc),
                               quantization=label or ckpt.quantization)
