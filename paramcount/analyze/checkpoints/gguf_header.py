"""A GGUF file's header, read by a bounded parser of paramcount's own (issue 30).

Why not ``gguf.GGUFReader``: it walks every element of every metadata array, making numpy views
of each, before anything can be checked: a 162-byte file declaring an array of 2^62 elements
grew without end, and a real tokenizer (Llama 3's 128 k tokens and 280 k merges) took 10 s and
650 MB. Here every count and length is checked against the bytes left in the file and a cap
BEFORE anything is allocated or walked; the tokenizer's arrays, which paramcount never reads, are
stepped over (numbers in one step, strings by their lengths). What is decoded is what
``GGUFReader``'s ``contents()`` gives (numbers through numpy's ``tolist``, strings UTF-8), and
what it refuses is refused here too (a bad magic or version, a duplicate key or tensor, an
unknown type, a bad ``general.alignment``, tensor data past the end of the file).

The layout (gguf's ``gguf_reader.py`` and ``constants.py``): magic ``GGUF``, version (2 or 3;
read as zero in its low half, the file is of the other byte order), tensor count and key count
(uint64); each key a string (uint64 length, UTF-8), a value type (uint32) and the value; each
tensor info its name, dimension count (uint32), dimensions (uint64, innermost first), GGML type
(uint32) and data offset (uint64); the data from the header's end rounded up to the alignment.
"""

from __future__ import annotations

import mmap
import os
import struct
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from paramcount.core.errors import InputFileError
from paramcount.runtime import inputs

__all__ = ["MAX_VALUE", "Header", "TensorInfo", "read_header"]

MAX_HEADER = 1 << 27  # bytes of metadata and tensor infos; a real one (256 k tokens) is < 16 MB
MAX_VALUE = 1 << 24  # bytes of one value paramcount decodes (the tokenizer's are stepped over)
MAX_DECODED = 1 << 25  # bytes of every value decoded (a list of numbers is ~8 bytes per byte)
MAX_TENSORS = 1 << 15  # a real file has ~2,000 at most (GLM-4.5: 92 blocks); each costs the
# attribution ~0.3 ms (65,536 took 20 s)
MAX_COUNT = 1 << 16  # keys (a real file has ~50), and arrays nested in one array
MAX_NAME = (1 << 16) - 1  # bytes in a key (the spec's limit), and in a tensor's name
MAX_DIMS = 4  # ggml's GGML_MAX_DIMS: llama.cpp refuses a tensor of more
MAX_DEPTH = 4  # arrays of arrays (the spec allows them; no file paramcount reads has one)
_STRING, _ARRAY, _UINT32 = 8, 9, 4  # gguf.GGUFValueType
# gguf.GGUFValueType → numpy's type (GGUFReader.gguf_scalar_to_np) and its bytes: a fixed size
_NUMBERS = {0: ("u1", 1), 1: ("i1", 1), 2: ("u2", 2), 3: ("i2", 2), 4: ("u4", 4), 5: ("i4", 4),
            6: ("f4", 4), 7: ("?", 1), 10: ("u8", 8), 11: ("i8", 8), 12: ("f8", 8)}


class TensorInfo(NamedTuple):
    name: str
    kind: str  # gguf.GGMLQuantizationType's name: F32, Q4_K, ...
    ne: tuple[int, ...]  # dimensions as GGUF stores them, innermost first


class Header(NamedTuple):
    metadata: dict[str, object]  # the keys ``decode`` chose, decoded
    tensors: tuple[TensorInfo, ...]


class _Damaged(Exception):
    """Why the header is not read: caught in :func:`read_header`, said with the file's name."""


class _Cursor:
    """The header's bytes (a memory map of its first MAX_HEADER bytes at most: the data after
    the header are never touched), read forward, every read checked against what is left."""

    def __init__(self, buf: mmap.mmap, size: int, order: str):
        self.buf, self.size, self.order, self.pos = buf, size, order, 0
        self.window = len(buf)

    def need(self, n: int, what: str) -> int:
        """Room for ``n`` bytes at the cursor, or why not; the cursor's old place."""
        at = self.pos
        if at + n > self.size:
            raise _Damaged(f"{what} runs past the end of the file ({n:,} bytes declared at byte "
                           f"{at:,}, {self.size - at:,} left)")
        if at + n > self.window:
            raise _Damaged(f"{what} runs past the header's cap of {MAX_HEADER >> 20} MiB")
        self.pos = at + n
        return at

    def uint(self, width: int, what: str) -> int:
        at = self.need(width, what)
        return struct.unpack_from(self.order + ("I" if width == 4 else "Q"), self.buf, at)[0]

    def text(self, n: int, what: str) -> str:
        at = self.need(n, what)
        try:
            return bytes(self.buf[at:at + n]).decode("utf-8")
        except UnicodeDecodeError:
            raise _Damaged(f"{what} is not UTF-8") from None

    def numbers(self, code: str, count: int) -> list:
        import numpy as np

        dtype = np.dtype(self.order + code)  # "<u4", ">f8": the file's byte order
        at = self.pos - count * dtype.itemsize  # already taken by need()
        return np.frombuffer(self.buf[at:self.pos], dtype=dtype, count=count).tolist()

    def strings(self, count: int, what: str) -> None:
        """Steps over ``count`` strings: their lengths only (none decoded)."""
        self.need(8 * count, what)  # every length at least: the cheap bound first
        self.pos -= 8 * count
        unpack, buf, pos = struct.Struct(self.order + "Q").unpack_from, self.buf, self.pos
        limit = min(self.size, self.window)
        for _ in range(count):
            if pos + 8 > limit:  # the next length is not there
                pos += 8
                break
            pos += 8 + unpack(buf, pos)[0]
        if pos > limit:
            raise _Damaged(f"{what}: its strings run past " + (
                "the end of the file" if pos > self.size else
                f"the header's cap of {MAX_HEADER >> 20} MiB"))
        self.pos = pos


def _value(cur: _Cursor, key: str, vtype: int, decode: bool, depth: int = 0):
    """The value of type ``vtype`` at the cursor: decoded when ``decode``, else stepped over
    (None). A decoded value past MAX_VALUE is refused before it is read."""
    what = f"metadata {key!r}"
    start = cur.pos
    if vtype in _NUMBERS:
        code, width = _NUMBERS[vtype]
        cur.need(width, what)
        return cur.numbers(code, 1)[0] if decode else None
    if vtype == _STRING:
        n = cur.uint(8, what)
        if decode and 8 + n > MAX_VALUE and cur.pos + n <= cur.size:
            raise _Damaged(f"{what} takes {8 + n:,} bytes (at most {MAX_VALUE:,} read)")
        if decode:
            return cur.text(n, what)
        cur.need(n, what)
        return None
    if vtype != _ARRAY:
        raise _Damaged(f"{what} has value type {vtype}, which GGUF does not define")
    if depth >= MAX_DEPTH:
        raise _Damaged(f"{what} holds arrays nested deeper than {MAX_DEPTH}")
    itype, count = cur.uint(4, what), cur.uint(8, what)
    if itype in _NUMBERS:
        code, width = _NUMBERS[itype]
        if decode and 12 + count * width > MAX_VALUE and cur.pos + count * width <= cur.size:
            raise _Damaged(f"{what} takes {12 + count * width:,} bytes (at most {MAX_VALUE:,} "
                           "read)")
        cur.need(count * width, what)
        return cur.numbers(code, count) if decode else None
    if itype == _STRING and not decode:
        cur.strings(count, what)
        return None
    if itype not in (_STRING, _ARRAY):
        raise _Damaged(f"{what} is an array of type {itype}, which GGUF does not define")
    cur.need((8 if itype == _STRING else 12) * count, what)  # each item's least
    cur.pos -= (8 if itype == _STRING else 12) * count
    if itype == _ARRAY and count > MAX_COUNT:  # each a call: no real file nests arrays at all
        raise _Damaged(f"{what} holds {count:,} arrays (at most {MAX_COUNT:,} read)")
    out: list = []
    for _ in range(count):  # strings decoded, or arrays: flattened, as GGUFReader's contents()
        v = _value(cur, key, itype, decode, depth + 1)
        if decode and cur.pos - start > MAX_VALUE:
            raise _Damaged(f"{what} takes more than {MAX_VALUE:,} bytes")
        if decode:
            out += v if itype == _ARRAY else [v]
    return out if decode else None


def _tensor(cur: _Cursor, gguf) -> tuple[str, str, tuple[int, ...], int, int, int]:
    """A tensor info: (name, type name, dimensions, data offset, block, bytes per block)."""
    n = cur.uint(8, "a tensor's name")
    if n > MAX_NAME:
        raise _Damaged(f"a tensor name of {n:,} bytes (at most {MAX_NAME:,})")
    name = cur.text(n, "a tensor's name")
    dims = cur.uint(4, f"tensor {name!r}")
    if dims > MAX_DIMS:
        raise _Damaged(f"tensor {name!r} has {dims:,} dimensions (ggml holds at most {MAX_DIMS})")
    ne = tuple(cur.uint(8, f"tensor {name!r}") for _ in range(dims))
    raw, offset = cur.uint(4, f"tensor {name!r}"), cur.uint(8, f"tensor {name!r}")
    try:
        kind = gguf.GGMLQuantizationType(raw)
        block, size = gguf.GGML_QUANT_SIZES[kind]
    except (ValueError, KeyError):
        raise _Damaged(f"tensor {name!r} has GGML type {raw}, which gguf does not know") from None
    return name, kind.name, ne, offset, block, size


def _data(infos, start: int, size: int) -> None:
    """Each tensor's data inside the file, as GGUFReader's views of them must be; a shape of
    more bytes than numpy can index (2^63) refused, as numpy refuses it."""
    for name, kind, ne, offset, block, tsize in infos:
        nonzero = 1
        for d in ne:
            nonzero *= d or 1
        if nonzero * tsize // block >= 1 << 63:
            raise _Damaged(f"tensor {name!r} of dimensions {list(ne)} is too big to be one")
        if block > 1 and (not ne or ne[0] % block):
            raise _Damaged(f"tensor {name!r} of type {kind}: a row of {ne[:1]} is not whole "
                           f"blocks of {block}")
        n = 1
        for d in ne:
            n *= d
        nbytes = n * tsize // block
        if nbytes and start + offset + nbytes > size:
            raise _Damaged(f"tensor {name!r}'s {nbytes:,} bytes at offset {offset:,} lie past the "
                           "end of the file")


def _parse(cur: _Cursor, decode: Callable[[str], bool], gguf) -> Header:
    cur.pos = 8
    tensors, keys = cur.uint(8, "the tensor count"), cur.uint(8, "the key count")
    for count, cap, what in ((tensors, MAX_TENSORS, "tensors"), (keys, MAX_COUNT, "metadata keys")):
        if count > cap:
            raise _Damaged(f"{count:,} {what} declared, past the cap of 2^{cap.bit_length() - 1} "
                           f"{what}")
    meta: dict[str, object] = {}
    seen: set[str] = set()
    decoded, alignment = 0, 32  # GGUF_DEFAULT_ALIGNMENT
    for _ in range(keys):
        n = cur.uint(8, "a key")
        if n > MAX_NAME:
            raise _Damaged(f"a key of {n:,} bytes (the spec's limit is {MAX_NAME:,})")
        key = cur.text(n, "a key")
        if key in seen:
            raise _Damaged(f"metadata key {key!r} twice")
        seen.add(key)
        vtype, at = cur.uint(4, f"metadata {key!r}"), cur.pos
        value = _value(cur, key, vtype, decode(key))
        if decode(key):
            decoded += cur.pos - at
            if decoded > MAX_DECODED:
                raise _Damaged(f"metadata past {MAX_DECODED:,} bytes beside the tokenizer's")
            meta[key] = value
        if key == "general.alignment":
            if vtype != _UINT32 or not isinstance(value, int) or value <= 0 or value & (value - 1):
                raise _Damaged(f"general.alignment {value!r}: not a power of two as a uint32")
            alignment = value
    infos = [_tensor(cur, gguf) for _ in range(tensors)]
    seen.clear()
    for name, *_ in infos:
        if name in seen:
            raise _Damaged(f"tensor {name!r} twice")
        seen.add(name)
    _data(infos, -(-cur.pos // alignment) * alignment, cur.size)
    return Header(meta, tuple(TensorInfo(i[0], i[1], i[2]) for i in infos))


def read_header(path: Path, decode: Callable[[str], bool]) -> Header:
    """The metadata (the keys ``decode`` chooses) and tensor infos of the GGUF file at
    ``path``, or one line saying why it is not one paramcount reads."""
    from paramcount.analyze.checkpoints.tensors import require

    gguf = require("gguf", "a GGUF checkpoint")  # its types' names and sizes, as llama.cpp's
    inputs.check_regular(path, "GGUF checkpoint")  # before the open a FIFO would block
    try:
        with path.open("rb") as f:
            st = os.fstat(f.fileno())
            if inputs.irregular(st.st_mode):  # replaced since: not read either
                raise InputFileError(f"cannot read GGUF checkpoint {path}: "
                                     f"{inputs.irregular(st.st_mode)}")
            if st.st_size < 24:
                raise InputFileError(f"{path}: truncated GGUF header ({st.st_size} bytes)")
            with mmap.mmap(f.fileno(), min(st.st_size, MAX_HEADER),
                           access=mmap.ACCESS_READ) as buf:
                return _read(buf, st.st_size, decode, gguf)
    except _Damaged as exc:
        raise InputFileError(f"{path}: not a readable GGUF file: {exc}") from None
    except (OSError, ValueError) as exc:
        if isinstance(exc, InputFileError):
            raise
        raise InputFileError(f"{path}: cannot read it as GGUF: {exc}") from None


def _read(buf: mmap.mmap, size: int, decode: Callable[[str], bool], gguf) -> Header:
    if buf[:4] != b"GGUF":
        raise _Damaged("GGUF magic invalid")
    order = "<"
    version = struct.unpack_from("<I", buf, 4)[0]
    if version & 0xFFFF == 0:  # written on a host of the other byte order (as GGUFReader reads)
        order, version = ">", struct.unpack_from(">I", buf, 4)[0]
    if version not in (2, 3):
        raise _Damaged(f"version {version}, which the gguf reader cannot handle (2 and 3)")
    return _parse(_Cursor(buf, size, order), decode, gguf)
