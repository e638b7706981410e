"""What a checkpoint reader returns: every stored tensor's name, dtype, shape and bytes, and the
logical parameter count it stands for (the same as its element count unless it is packed)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from paramcount.core.errors import InputFileError

__all__ = ["MAX_DIM", "Checkpoint", "StoredTensor", "check_shape", "require"]

# A dimension beyond 2**48 (or a tensor beyond 2**56 elements) is no tensor anyone stores: the
# header is damaged, and is refused before any size is computed from it.
MAX_DIM = 2**48
MAX_ELEMENTS = 2**56


@dataclass(frozen=True)
class StoredTensor:
    """One tensor as stored.

    Args:
        name: str. The name in the file (``model.layers.0.self_attn.q_proj.weight``).
        dtype: str. The stored type (``BF16``, ``I32``, GGUF's ``Q4_K``).
        shape: tuple of int. The stored shape (a GPTQ ``qweight``'s packed one).
        nbytes: int. Bytes the data takes in the file.
        logical: int. Parameters it stands for: its element count, or the unpacked count of a
            quantized weight.
        logical_name: str. The name of the weight it stands for (``...q_proj.weight`` for a
            GPTQ ``...q_proj.qweight``); the name itself for a plain tensor.
        alternatives: tuple of str. Other names it may stand for, when its format's name map
            gives several (a GGUF tensor: every transformers name llama.cpp converts it from);
            the one the formula tree claims is kept (:mod:`paramcount.analyze.checkpoints.check`).
        role: str. ``""`` for a weight; otherwise why it is stored beside the weights
            (``quantization scales``), for the stored-versus-built terms.
    """

    name: str
    dtype: str
    shape: tuple[int, ...]
    nbytes: int
    logical: int
    logical_name: str = ""
    role: str = ""
    alternatives: tuple[str, ...] = ()

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def weight_name(self) -> str:
        return self.logical_name or self.name


@dataclass(frozen=True)
class Checkpoint:
    """A checkpoint's header: its tensors, and the configuration stored with it."""

    path: str
    format: str  # "safetensors", "GGUF", "Keras .weights.h5"
    tensors: tuple[StoredTensor, ...]
    files: tuple[str, ...] = ()
    # The config beside the checkpoint (config.json), or the one its metadata gives (GGUF).
    config: Mapping | None = None
    config_where: str | None = None
    metadata: Mapping[str, object] = field(default_factory=dict)
    # How the weights are quantized (a quantization_config, GGUF's file type), or "".
    quantization: str = ""

    def by_dtype(self) -> dict[str, tuple[int, int]]:
        """dtype → (elements as the Hub counts them: the sum of the stored shapes, bytes)."""
        out: dict[str, tuple[int, int]] = {}
        for t in self.tensors:
            n, b = out.get(t.dtype, (0, 0))
            out[t.dtype] = (n + t.numel, b + t.nbytes)
        return dict(sorted(out.items()))

    @property
    def stored_total(self) -> int:
        return sum(t.numel for t in self.tensors)

    @property
    def stored_bytes(self) -> int:
        return sum(t.nbytes for t in self.tensors)


def check_shape(where: str, name: str, shape: object) -> tuple[int, ...]:
    """A header's shape as a tuple of ints, or one line saying why it is not one."""
    if not isinstance(shape, (list, tuple)) or not all(
            isinstance(d, int) and not isinstance(d, bool) for d in shape):
        raise InputFileError(f"{where}: tensor {name!r} has shape {shape!r}: expected a list of "
                             "integers")
    bad = [d for d in shape if d < 0 or d > MAX_DIM]
    if bad:
        raise InputFileError(f"{where}: tensor {name!r} has dimension {bad[0]} in shape "
                             f"{list(shape)}: a dimension is between 0 and 2^48")
    total = 1
    for d in shape:
        total *= d
        if total > MAX_ELEMENTS:
            raise InputFileError(f"{where}: tensor {name!r} of shape {list(shape)} has more than "
                                 "2^56 elements: not a real tensor")
    return tuple(shape)


def require(module: str, what: str):
    """``module`` imported, or one line saying how to install it (the ``checkpoints`` extra)."""
    import importlib

    from paramcount.core.errors import ParamcountError

    try:
        return importlib.import_module(module)
    except ImportError:
        raise ParamcountError(f"reading {what} needs the {module} package, which is not "
                              "installed: pip install 'paramcount[checkpoints]'") from None
