"""safetensors headers: a single file, or a folder of shards with ``model.safetensors.index.json``.

The ``safetensors`` library validates each file (``safe_open`` memory-maps it and parses the
header: the length field against the file's size, a 100 MB cap on the header, the JSON, every
dtype and shape, the data offsets covering the file exactly) and gives names, dtypes and shapes;
memory-mapping reads no page of the data, so a sparse 800 GB file opens in milliseconds.

Two small reads of our own, each justified here: the 8-byte length field first, so a file that
is too short or declares a header beyond its size is refused with the sizes named before the
library maps it; and, once the library has accepted the header, its JSON text again, because the
library parses the header into a map in which a second tensor of the same name silently replaces
the first (a duplicate name is a damaged header, and is refused). Nothing past the header is read.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

from paramcount.analyze.checkpoints.tensors import Checkpoint, StoredTensor, check_shape, require
from paramcount.core.errors import InputFileError
from paramcount.runtime import inputs

__all__ = ["INDEX", "read_file", "read_folder"]

INDEX = "model.safetensors.index.json"
_MAX_HEADER = 100_000_000  # the library's own cap (safetensors' MAX_HEADER_SIZE)


def _length(path: Path) -> int:
    """The header length the file declares, checked against the file's size. The file must be
    a regular one, checked before it is opened (opening a FIFO waits for a writer forever)."""
    size = inputs.check_regular(path, "checkpoint")
    try:
        with path.open("rb") as f:
            head = f.read(8)
    except OSError as exc:
        raise InputFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(head) < 8:
        raise InputFileError(f"{path}: truncated safetensors header: {size} bytes, fewer than the "
                             "8-byte header length field")
    (n,) = struct.unpack("<Q", head)
    if n > size - 8:
        raise InputFileError(f"{path}: the header length field says {n:,} bytes but the file has "
                             f"{size - 8:,} after it: truncated or not a safetensors file")
    if n > _MAX_HEADER:
        raise InputFileError(f"{path}: header of {n:,} bytes, beyond the 100 MB a safetensors "
                             "header may have")
    return n


def _pairs_no_duplicates(where: Path):
    def hook(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise InputFileError(f"{where}: duplicate tensor name {k!r} in the header")
            seen.add(k)
        return dict(pairs)
    return hook


def read_file(path: str | Path) -> tuple[list[StoredTensor], dict[str, str]]:
    """The tensors of one ``.safetensors`` file (in the header's order) and its ``__metadata__``."""
    st = require("safetensors", "a safetensors checkpoint")
    SafetensorError, safe_open = st.SafetensorError, st.safe_open

    p = Path(path)
    n = _length(p)
    try:
        with safe_open(os.fspath(p), framework="numpy") as f:
            meta = dict(f.metadata() or {})
            names = list(f.offset_keys())
    except SafetensorError as exc:
        reason = str(exc).removeprefix("Error while deserializing header: ")
        raise InputFileError(f"{p}: not a valid safetensors file: {reason}") from None
    with p.open("rb") as fh:
        fh.seek(8)
        text = fh.read(n)
    # the library parsed it already (a bad one is unlikely here), but its limits are not ours
    header = inputs.parse_json(text, f"{p}: header", "a safetensors header",
                               object_pairs_hook=_pairs_no_duplicates(p))
    out = []
    for name in names:
        info = header[name]
        shape = check_shape(str(p), name, info["shape"])
        begin, end = info["data_offsets"]
        out.append(StoredTensor(name, str(info["dtype"]), shape, end - begin, _prod(shape)))
    return out, meta


def _prod(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _index(path: Path) -> tuple[dict[str, str], dict]:
    size = inputs.check_regular(path, "index")
    if size > _MAX_HEADER:  # an index names tensors; DeepSeek-V3's 91,000 take 9 MB
        raise InputFileError(f"{path}: an index of {size:,} bytes, beyond the 100 MB an index of "
                             "tensor names could take: not read")
    data = inputs.parse_json(inputs.read_capped(path, "index", _MAX_HEADER), str(path),
                             "an index", object_pairs_hook=_pairs_no_duplicates(path))
    wm = data.get("weight_map") if isinstance(data, dict) else None
    if not isinstance(wm, dict) or not all(isinstance(v, str) for v in wm.values()):
        raise InputFileError(f"{path}: no weight_map of tensor name → shard file")
    return wm, data.get("metadata") or {}


def read_folder(folder: Path, index: Path | None) -> Checkpoint:
    """Every shard an index names (each once), or every ``*.safetensors`` file without one."""
    if index is not None:
        wm, meta = _index(index)
        shards = list(dict.fromkeys(wm.values()))
        for s in shards:
            if Path(s).name != s:
                raise InputFileError(f"{index}: shard {s!r} is not a file name in the folder")
            if not (folder / s).exists():
                raise InputFileError(f"{index}: names shard {s!r}, which is not in {folder}")
            inputs.check_regular(folder / s, "shard")  # before any is read: a FIFO is refused
    else:
        wm, meta = {}, {}
        shards = sorted(p.name for p in folder.glob("*.safetensors"))
        for s in shards:  # (each is read in turn; a FIFO among them is refused before any is)
            inputs.check_regular(folder / s, "shard")
    tensors: list[StoredTensor] = []
    where: dict[str, str] = {}
    for s in shards:
        ts, m = read_file(folder / s)
        meta = {**m, **meta}
        for t in ts:
            if t.name in where:
                raise InputFileError(f"{folder}: tensor {t.name!r} is stored in both "
                                     f"{where[t.name]} and {s}")
            if index is not None and wm.get(t.name) not in (None, s):
                raise InputFileError(f"{index}: maps {t.name!r} to {wm[t.name]}, but it is "
                                     f"stored in {s}")
            where[t.name] = s
            tensors.append(t)
    missing = [k for k in wm if k not in where]
    if missing:
        raise InputFileError(f"{index}: names tensor {missing[0]!r} in {wm[missing[0]]}, which "
                             f"does not hold it ({len(missing)} such)")
    return Checkpoint(str(folder), "safetensors", tuple(tensors), tuple(shards),
                      metadata={k: v for k, v in meta.items() if isinstance(v, (str, int))})
