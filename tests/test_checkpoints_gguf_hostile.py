"""Hostile GGUF headers (issue 30, item 1): counts and lengths that drove gguf's own reader
unbounded, each run as a user runs it (``paramcount count --checkpoint FILE`` in a subprocess)
and bounded from outside, so a regression fails in seconds instead of eating the machine:
exit 2, one line on stderr, within 30 s, in an address space of 1 GiB."""

from __future__ import annotations

import os
import resource
import struct
import subprocess
import sys
import time

import pytest

pytest.importorskip("gguf")

TIMEOUT = 30  # seconds: the bound
LIMIT = 1 << 30  # bytes of address space (resident is less): the bound, enforced


def _limit() -> None:  # in the child, before exec
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def _run(path) -> tuple[int, str, float]:
    """paramcount count --checkpoint ``path`` as a user runs it: (exit, stderr, seconds)."""
    env = {**os.environ, "PARAMCOUNT_CACHE": "0", "OPENBLAS_NUM_THREADS": "1"}
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "paramcount", "count", "--checkpoint", str(path)],
                          capture_output=True, text=True, timeout=TIMEOUT, preexec_fn=_limit,
                          env=env)
    return done.returncode, done.stderr, time.monotonic() - start


def _one_line(path, *needles: str) -> str:
    code, err, seconds = _run(path)
    assert code == 2, (code, err[-2000:])
    assert err.count("\n") == 1 and str(path) in err, err[-2000:]
    assert all(n in err for n in needles), err
    assert seconds < TIMEOUT
    return err


def _str(b: bytes) -> bytes:
    return struct.pack("<Q", len(b)) + b


def _kv_str(key: bytes, value: bytes) -> bytes:
    return _str(key) + struct.pack("<I", 8) + _str(value)  # 8: STRING


def _kv_u32(key: bytes, value: int) -> bytes:
    return _str(key) + struct.pack("<II", 4, value)  # 4: UINT32


def _kv_array(key: bytes, item_type: int, count: int) -> bytes:
    """An array's key and declaration only (9: ARRAY), its ``count`` items not written."""
    return _str(key) + struct.pack("<IIQ", 9, item_type, count)


def _head(n_tensors: int, *kvs: bytes) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", 3, n_tensors, len(kvs)) + b"".join(kvs)


def _write(path, head: bytes, size: int):
    """``head``, then zeros up to ``size`` bytes: a sparse hole, no disk."""
    with path.open("wb") as f:
        f.write(head)
        f.truncate(max(size, len(head)))
    return path


ARCH = _kv_str(b"general.architecture", b"llama")


def test_an_array_of_2_62_elements_in_162_bytes_is_refused_before_any_is_walked(tmp_path):
    path = _write(tmp_path / "m.gguf", _head(0, ARCH, _kv_array(b"general.tags", 0, 2**62)), 162)
    assert path.stat().st_size == 162
    _one_line(path, "'general.tags'", "past the end of the file")


@pytest.mark.parametrize("item_type", [8, 9, 12])  # STRING, ARRAY, FLOAT64: each at least 8 bytes
def test_an_array_of_wider_items_than_the_file_holds_is_refused(tmp_path, item_type):
    head = _head(0, ARCH, _kv_array(b"tokenizer.ggml.tokens", item_type, 2**40))
    _one_line(_write(tmp_path / "m.gguf", head, 4096), "'tokenizer.ggml.tokens'",
              "past the end of the file")


def test_a_real_20_mb_array_is_refused_by_its_size_without_reading_it(tmp_path):
    head = _head(0, ARCH, _kv_array(b"general.blob", 0, 20_000_000))  # UINT8
    path = _write(tmp_path / "m.gguf", head, 21 * 2**20)
    _one_line(path, "metadata 'general.blob' takes 20,000,012 bytes")


@pytest.mark.parametrize("item_type", [0, 8])  # UINT8: 20 M of them; STRING: 2.5 M empty ones
def test_a_real_20_mb_tokenizer_array_is_stepped_over_not_walked_by_gguf(tmp_path, item_type):
    """The tokenizer's arrays are never read (a vocabulary of 256 k is 4 MB): stepped over in
    bounded time, then the file is judged on what paramcount reads (here no architecture)."""
    head = _head(0, _kv_array(b"tokenizer.ggml.scores", item_type, 20_000_000 // (
        1 if item_type == 0 else 8)))
    path = _write(tmp_path / "m.gguf", head, 21 * 2**20)
    _one_line(path, "GGUF architecture None has no name table")


def test_a_header_past_its_cap_is_refused(tmp_path):
    """The header (metadata and tensor infos) is read to 128 MiB at most, the tokenizer's
    included: a file of 1 GB of empty strings would otherwise cost minutes to step over."""
    head = _head(0, ARCH, _kv_array(b"tokenizer.ggml.tokens", 8, 2**27))  # 1 GiB of lengths
    _one_line(_write(tmp_path / "m.gguf", head, 2**30 + 4096), "'tokenizer.ggml.tokens'",
              "128 MiB")


@pytest.mark.parametrize(("counts", "needle"), [
    ((2**62, 1), "past the cap of 2^15 tensors"), ((0, 2**62), "past the cap of 2^16 metadata keys"),
    ((2**15 + 1, 0), "past the cap of 2^15 tensors")])
def test_a_count_of_tensors_or_keys_past_its_cap_is_refused(tmp_path, counts, needle):
    head = b"GGUF" + struct.pack("<IQQ", 3, *counts) + ARCH
    _one_line(_write(tmp_path / "m.gguf", head, 4096), needle)


def test_a_key_longer_than_the_spec_allows_is_refused(tmp_path):
    head = b"GGUF" + struct.pack("<IQQQ", 3, 0, 1, 2**20)  # one key, of 1 MiB
    _one_line(_write(tmp_path / "m.gguf", head, 2**21), "key of 1,048,576 bytes")


def test_one_tensor_in_block_65535_builds_no_name_table_for_every_block(tmp_path):
    """One tensor named in block 65,535 (inside the 65,536 cap): gguf's name map is built
    for the blocks present, not for every block up to the largest index named."""
    name = b"blk.65535.attn_q.weight"
    info = _str(name) + struct.pack("<IQQIQ", 2, 8, 8, 0, 0)  # F32 (8, 8) at offset 0
    head = _head(1, ARCH, _kv_u32(b"llama.block_count", 1),
                 _kv_u32(b"llama.embedding_length", 8)) + info
    path = _write(tmp_path / "m.gguf", head, 1024)
    assert len(head) + 32 + 256 <= 1024  # the tensor's 256 bytes lie inside the file
    err = _one_line(path, "no 2-D token_embd.weight")  # read: the file's own fault said
    assert "out of memory" not in err


def test_nested_arrays_past_their_depth_are_refused(tmp_path):
    head = _head(0, ARCH, _str(b"general.deep") + struct.pack("<I", 9)
                 + struct.pack("<IQ", 9, 1) * 10_000 + struct.pack("<IQ", 0, 0))
    _one_line(_write(tmp_path / "m.gguf", head, len(head) + 64), "'general.deep'", "nested")


@pytest.mark.parametrize("endian", ["LITTLE", "BIG"])
def test_the_own_parser_reads_what_gguf_s_reader_reads(tmp_path, endian):
    """Every value type, an array of each, strings, and tensors of several GGML types, in both
    byte orders: the bounded parser's metadata and tensor infos are GGUFReader's."""
    import gguf
    import numpy as np

    from paramcount.analyze.checkpoints.gguf_header import read_header

    path = tmp_path / "m.gguf"
    w = gguf.GGUFWriter(path, "llama", endianess=gguf.GGUFEndian[endian])
    T = gguf.GGUFValueType
    for i, (t, v) in enumerate([(T.UINT8, 200), (T.INT8, -5), (T.UINT16, 60000), (T.INT16, -3),
                                (T.UINT32, 4_000_000_000), (T.INT32, -7), (T.FLOAT32, 0.1),
                                (T.BOOL, True), (T.UINT64, 2**63 + 5), (T.INT64, -(2**40)),
                                (T.FLOAT64, 1e-300), (T.STRING, "é ü 名")]):
        w.add_key_value(f"k.{i}", v, t)
        w.add_key_value(f"a.{i}", [v, v], T.ARRAY, sub_type=t)
    w.add_array("tokenizer.ggml.tokens", ["a", "bc", ""])
    for name, kind, shape in [("token_embd.weight", "Q4_K", (8, 256)), ("n.weight", "F32", (3,)),
                              ("blk.0.attn_q.weight", "Q8_0", (4, 64)),
                              ("blk.0.x.weight", "BF16", (2, 3, 5))]:
        qtype = gguf.GGMLQuantizationType[kind]
        block, size = gguf.GGML_QUANT_SIZES[qtype]
        w.add_tensor_info(name, shape, np.dtype(np.float32),
                          int(np.prod(shape[:-1])) * shape[-1] // block * size, raw_dtype=qtype)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    w.close()
    with path.open("r+b") as f:
        f.truncate(f.seek(0, 2) + 4096)
    theirs = gguf.GGUFReader(path)
    ours = read_header(path, lambda key: not key.startswith("tokenizer.ggml."))
    expected = {k: f.contents() for k, f in theirs.fields.items()
                if not k.startswith(("GGUF.", "tokenizer.ggml."))}
    assert ours.metadata == expected and len(expected) == 25
    assert [type(v) for v in ours.metadata.values()] == [type(v) for v in expected.values()]
    assert [(t.name, t.kind, t.ne) for t in ours.tensors] == [
        (t.name, t.tensor_type.name, tuple(int(d) for d in t.shape)) for t in theirs.tensors]


def test_the_name_map_is_gguf_s_own_for_every_table_and_block_count():
    """gguf's get_tensor_name_map, inverted, name for name and in its order, for every GGUF
    table paramcount declares: the placeholder map formats what gguf's names block by block."""
    import gguf

    from paramcount.analyze.checkpoints.gguf_io import candidates, gguf_arch
    from paramcount.analyze.checkpoints.gguf_names import TABLES

    for table in sorted(TABLES):
        arch = gguf_arch(table)
        for blocks in (0, 1, 3):
            inverse: dict[str, list[str]] = {}
            for hf, (_, name) in gguf.get_tensor_name_map(arch, blocks).mapping.items():
                if hf != name:
                    inverse.setdefault(name, []).append(hf)
            ours = candidates(arch, blocks)
            assert {name: ours.get(name) for name in inverse} == inverse, (table, blocks)
            for name in (f"blk.{blocks}.attn_q", f"blk.0{blocks}.attn_q", "no.such.name"):
                assert ours.get(name) == [], (table, blocks, name)  # gguf's names neither


def test_the_name_map_of_block_65535_is_built_at_once():
    from paramcount.analyze.checkpoints.gguf_io import candidates, gguf_arch

    start = time.monotonic()
    names = candidates(gguf_arch("llama"), 65_536)
    assert names.get("blk.65535.attn_q")[0] == "model.layers.65535.self_attn.q_proj"
    assert time.monotonic() - start < 1  # gguf's own: 17.7 M names, 36 s


def test_a_string_past_the_end_in_a_stepped_over_array_is_refused(tmp_path):
    strings = _str(b"ab") + struct.pack("<Q", 2**40)  # the second string: 1 TiB
    head = _head(0, ARCH, _kv_array(b"tokenizer.ggml.merges", 8, 2) + strings)
    _one_line(_write(tmp_path / "m.gguf", head, len(head) + 64), "'tokenizer.ggml.merges'",
              "its strings run past the end of the file")


def test_a_key_that_is_not_utf_8_is_one_line(tmp_path):
    head = _head(0, _kv_str(b"general.\xff", b"x"))
    _one_line(_write(tmp_path / "m.gguf", head, len(head) + 64), "a key is not UTF-8")
