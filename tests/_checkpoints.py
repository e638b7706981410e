"""Checkpoints the tests write themselves (nothing downloaded): a safetensors header for given
names, dtypes and shapes, the file then extended to its full size as a sparse file (no disk, no
memory: the data region is a hole). Imports neither torch nor TensorFlow."""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Iterable, Mapping
from pathlib import Path

SIZES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1,
         "U8": 1, "F8_E4M3": 1, "BOOL": 1}


def header(tensors: Iterable[tuple[str, str, tuple[int, ...]]],
           metadata: Mapping[str, str] | None = None) -> tuple[dict, int]:
    out: dict = {"__metadata__": dict(metadata or {"format": "pt"})}
    offset = 0
    for name, dtype, shape in tensors:
        n = math.prod(shape) * SIZES[dtype]
        out[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + n]}
        offset += n
    return out, offset


def write_safetensors(path: Path, tensors: Iterable[tuple[str, str, tuple[int, ...]]],
                      metadata: Mapping[str, str] | None = None) -> Path:
    """A safetensors file of ``tensors`` (name, dtype, shape), sparse: only the header written."""
    hdr, size = header(tensors, metadata)
    text = json.dumps(hdr).encode()
    text += b" " * (-len(text) % 8)  # the format pads the header to 8 bytes with spaces
    with path.open("wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        f.truncate(8 + len(text) + size)
    return path


def write_sharded(folder: Path, tensors: list[tuple[str, str, tuple[int, ...]]], shards: int
                  ) -> Path:
    """``model-0000i-of-0000k.safetensors`` files and their ``model.safetensors.index.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    per = -(-len(tensors) // shards)
    weight_map = {}
    for i in range(shards):
        name = f"model-{i + 1:05d}-of-{shards:05d}.safetensors"
        part = tensors[i * per:(i + 1) * per]
        write_safetensors(folder / name, part)
        weight_map.update({t[0]: name for t in part})
    total = sum(math.prod(s) * SIZES[d] for _, d, s in tensors)
    (folder / "model.safetensors.index.json").write_text(json.dumps(
        {"metadata": {"total_size": total}, "weight_map": weight_map}))
    return folder


def write_config(folder: Path, config: Mapping) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config))


def write_gguf(path: Path, arch: str, kv: Mapping[str, int | str | list[int]],
               tensors: Iterable[tuple[str, str, tuple[int, ...]]]) -> Path:
    """A GGUF file's header written by gguf's own GGUFWriter: ``kv`` under the architecture's
    prefix (``tokenizer.*`` and ``general.*`` as named; a str a string, an int a uint32, a list an
    array),
    ``tensors`` (name, GGML type name, row-major logical shape) as tensor infos; the data region
    (whole blocks of each type, aligned as the writer aligns them) a sparse hole, so a full-size
    file costs no disk."""
    import gguf
    import numpy as np

    w = gguf.GGUFWriter(path, arch)
    for key, value in kv.items():  # under the architecture's prefix, but the tokenizer's
        name = key if key.startswith(("tokenizer.", "general.")) else f"{arch}.{key}"
        if isinstance(value, str):
            w.add_string(name, value)
        elif isinstance(value, list):  # a per-block value (a hybrid's key/value heads)
            w.add_array(name, value)
        else:
            w.add_uint32(name, value)
    align = w.data_alignment
    total = 0
    for name, kind, shape in tensors:
        qtype = gguf.GGMLQuantizationType[kind]
        block, size = gguf.GGML_QUANT_SIZES[qtype]
        assert shape[-1] % block == 0, (name, shape, kind)
        nbytes = math.prod(shape[:-1]) * (shape[-1] // block * size)
        w.add_tensor_info(name, shape, np.dtype(np.float32), nbytes, raw_dtype=qtype)
        total += -(-nbytes // align) * align
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    w.close()
    with path.open("r+b") as f:
        end = f.seek(0, 2)
        f.truncate(-(-end // align) * align + total)
    return path
