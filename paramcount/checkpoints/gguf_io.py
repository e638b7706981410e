"""GGUF headers through the ``gguf`` package (llama.cpp's own reader): the metadata key-values
and the tensor infos. ``GGUFReader`` memory-maps the file and reads the header; the tensors'
data stay unread views. The metadata give the architecture and a transformers config (through
the family's table in :mod:`paramcount.checkpoints.gguf_names`); the names are translated to
transformers', so a GGUF tensor is attributed as a safetensors one is.

GGUF stores logical dimensions, innermost first (``ne[0]``): shapes are reversed here to the
row-major order transformers uses; a quantized tensor's bytes are whole blocks of its type
(``gguf.GGML_QUANT_SIZES``), its parameters the element count.
"""

from __future__ import annotations

import re
from pathlib import Path

from paramcount.checkpoints.gguf_names import TABLES, GGUFTable
from paramcount.checkpoints.quant import gguf_bytes
from paramcount.checkpoints.tensors import Checkpoint, StoredTensor, check_shape, require
from paramcount.errors import InputFileError

__all__ = ["read"]


def _reader(path: Path):
    gguf = require("gguf", "a GGUF checkpoint")

    if path.stat().st_size < 24:
        raise InputFileError(f"{path}: truncated GGUF header ({path.stat().st_size} bytes)")
    try:
        return gguf.GGUFReader(path)
    except (ValueError, IndexError, KeyError, OverflowError, TypeError, MemoryError) as exc:
        raise InputFileError(f"{path}: not a readable GGUF file: {exc}") from None


_MAX_VALUE = 1 << 24  # a metadata value beyond 16 MB is no header (the tokenizer's are skipped)


def _value(path: Path, field):
    size = sum(int(p.nbytes) for p in field.parts)
    if size > _MAX_VALUE:  # the reader's parts are views of the mapped file: nothing read yet
        raise InputFileError(f"{path}: GGUF metadata {field.name!r} takes {size:,} bytes: a "
                             "damaged header, not read")
    v = field.contents()
    return v.decode() if isinstance(v, bytes) else v


def read(path: Path) -> Checkpoint:
    r = _reader(path)
    meta = {name: _value(path, f) for name, f in r.fields.items()
            if not name.startswith(("GGUF.", "tokenizer.ggml."))}
    arch = meta.get("general.architecture")
    table = TABLES.get(arch) if isinstance(arch, str) else None
    if table is None:
        raise InputFileError(f"{path}: GGUF architecture {arch!r} has no name table in "
                             f"paramcount; known: {', '.join(sorted(TABLES))}")
    assert isinstance(arch, str)
    tensors = []
    for t in r.tensors:
        ne = [int(d) for d in t.shape]
        shape = check_shape(str(path), t.name, list(reversed(ne)))
        n = 1
        for d in shape:
            n *= d
        kind = t.tensor_type.name
        tensors.append(StoredTensor(t.name, kind, shape, gguf_bytes(kind, n), n,
                                    logical_name=_hf_name(table, t.name)))
    tensors = _fused(table, tensors)
    config = _config(table, arch, meta, tensors, path)
    ftype = meta.get("general.file_type")
    quant = sorted({t.dtype for t in tensors if t.dtype not in ("F32", "F16", "BF16")})
    return Checkpoint(str(path), "GGUF", tuple(tensors), (path.name,), config=config,
                      config_where=f"{path} (GGUF metadata)",
                      metadata={"general.architecture": arch, "general.file_type": ftype or 0},
                      quantization=", ".join(quant))


def _hf_name(table: GGUFTable, name: str) -> str:
    for pattern, template in table.names:
        if re.search(pattern, name):
            return re.sub(pattern, template, name)
    return name  # no transformers name: unclaimed, and named as such


def _fused(table: GGUFTable, tensors: list[StoredTensor]) -> list[StoredTensor]:
    """Pieces llama.cpp stores apart that transformers fuses, joined (shapes only)."""
    out = list(tensors)
    for first, second, target, axis in table.fuse:
        for a in [t for t in out if t.weight_name.endswith(first)]:
            partner = a.weight_name[: -len(first)] + second
            b = next((t for t in out if t.weight_name == partner), None)
            if b is None or len(a.shape) != len(b.shape):
                continue
            shape = list(a.shape)
            shape[axis] += b.shape[axis]
            joined = StoredTensor(f"{a.name}+{b.name}", a.dtype if a.dtype == b.dtype else
                                  f"{a.dtype}+{b.dtype}", tuple(shape), a.nbytes + b.nbytes,
                                  a.logical + b.logical,
                                  logical_name=a.weight_name[: -len(first)] + target)
            out = [joined if t is a else t for t in out if t is not b]
    return out


def _config(table: GGUFTable, arch: str, meta: dict, tensors: list[StoredTensor],
            path: Path) -> dict:
    """The transformers config the metadata describe."""
    cfg: dict = {}
    for key, hf_key in table.config.items():
        v = meta.get(f"{arch}.{key}")
        if isinstance(v, int) and not isinstance(v, bool):
            cfg[hf_key] = v
    for key in ("embedding_length", "block_count"):
        if f"{arch}.{key}" not in meta:
            raise InputFileError(f"{path}: GGUF metadata has no {arch}.{key}")
    emb = next((t for t in tensors if t.name == "token_embd.weight"), None)
    if emb is None or len(emb.shape) != 2:
        raise InputFileError(f"{path}: no 2-D token_embd.weight, which gives the vocabulary")
    cfg["vocab_size"] = emb.shape[0]
    cfg["tie_word_embeddings"] = not any(t.name == "output.weight" for t in tensors)
    model_type, cls = table.model_type, table.hf_class
    if table.moe:  # a dense model, or a mixture of experts converted under its name
        if cfg.get("num_local_experts"):
            model_type, cls = table.moe
        else:
            cfg.pop("num_local_experts", None)
            cfg.pop("num_experts_per_tok", None)
    return {"model_type": model_type, "architectures": [cls], **cfg}
