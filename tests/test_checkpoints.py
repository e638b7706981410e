"""Checkpoint headers without torch or TensorFlow: bad input refused in one line (exit 2) before
anything past the header is read, quantized layouts unpacked, the stored figure per dtype."""

from __future__ import annotations

import json
import struct
import sys
import tracemalloc

import pytest

from paramcount.analyze.checkpoints import quant, read
from paramcount.analyze.checkpoints.tensors import StoredTensor
from paramcount.cli.main import main
from paramcount.core.errors import InputFileError
from tests._checkpoints import write_config, write_safetensors

LLAMA_CONFIG = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": 64,
                "hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 2,
                "num_attention_heads": 4, "num_key_value_heads": 2, "tie_word_embeddings": False}


def llama_tensors(v=64, d=16, f=32, layers=2, kv=8):
    out = [("model.embed_tokens.weight", "BF16", (v, d))]
    for i in range(layers):
        p = f"model.layers.{i}."
        out += [(p + "input_layernorm.weight", "BF16", (d,)),
                (p + "self_attn.q_proj.weight", "BF16", (d, d)),
                (p + "self_attn.k_proj.weight", "BF16", (kv, d)),
                (p + "self_attn.v_proj.weight", "BF16", (kv, d)),
                (p + "self_attn.o_proj.weight", "BF16", (d, d)),
                (p + "post_attention_layernorm.weight", "BF16", (d,)),
                (p + "mlp.gate_proj.weight", "BF16", (f, d)),
                (p + "mlp.up_proj.weight", "BF16", (f, d)),
                (p + "mlp.down_proj.weight", "BF16", (d, f))]
    return [*out, ("model.norm.weight", "BF16", (d,)), ("lm_head.weight", "BF16", (v, d))]


def _raw(path, length: int, body: bytes = b"") -> str:
    path.write_bytes(struct.pack("<Q", length) + body)
    return str(path)


def _refused(capsys, argv, *needles):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("paramcount: error: "), err
    for n in needles:
        assert n in err, err
    return err


def test_a_hand_written_llama_checkpoint_matches(tmp_path, capsys):
    write_safetensors(tmp_path / "model.safetensors", llama_tensors())
    write_config(tmp_path, LLAMA_CONFIG)
    assert main(["verify", "--checkpoint", str(tmp_path)]) == 0
    assert "match    llama" in capsys.readouterr().out
    assert main(["count", "--checkpoint", str(tmp_path / "model.safetensors"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    total = 2 * 64 * 16 + 16 + 2 * (2 * 16 + 2 * 16 * 16 + 2 * 8 * 16 + 3 * 32 * 16)
    assert data["stored"] == {"BF16": {"elements": total, "bytes": 2 * total}}
    assert data["stored_total"] == data["built"] == total and data["terms"] == []


def test_without_a_config_an_id_and_set_pick_the_model(tmp_path, capsys):
    write_safetensors(tmp_path / "model.safetensors", llama_tensors())
    _refused(capsys, ["count", "--checkpoint", str(tmp_path)], "no config.json beside")
    assert main(["verify", "llama", "--checkpoint", str(tmp_path), "--set", "v=64", "d_e=16",
                 "d_f=32", "L=2", "M=4", "M_kv=2", "tied=0"]) == 0


def test_truncated_header(tmp_path, capsys):
    (tmp_path / "a.safetensors").write_bytes(b"\x10\x00\x00")
    _refused(capsys, ["count", "--checkpoint", str(tmp_path / "a.safetensors")],
             "truncated safetensors header: 3 bytes")


@pytest.mark.parametrize("length", [5000, 10 * 2**30, 2**64 - 1])
def test_a_header_length_beyond_the_file_is_refused_without_allocating_it(tmp_path, capsys,
                                                                           length):
    path = _raw(tmp_path / "a.safetensors", length, b"{}")
    tracemalloc.start()
    _refused(capsys, ["count", "--checkpoint", path], f"says {length:,} bytes", "has 2 after it")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 50 * 2**20


def test_a_header_longer_than_the_format_allows(tmp_path, capsys):
    path = tmp_path / "a.safetensors"
    path.write_bytes(struct.pack("<Q", 200_000_000))
    with path.open("r+b") as f:
        f.truncate(8 + 200_000_000)  # sparse
    _refused(capsys, ["count", "--checkpoint", str(path)], "beyond the 100 MB")


def test_non_json_header(tmp_path, capsys):
    path = _raw(tmp_path / "a.safetensors", 10, b'{"a": nope')
    _refused(capsys, ["count", "--checkpoint", path], "not a valid safetensors file",
             "invalid JSON")


def test_duplicate_tensor_names(tmp_path, capsys):
    body = (b'{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, '
            b'"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}')
    path = _raw(tmp_path / "a.safetensors", len(body), body + b"\0" * 8)
    _refused(capsys, ["count", "--checkpoint", path], "duplicate tensor name 'a'")


@pytest.mark.parametrize("shape, needle", [([-2], "integer `-2`"),
                                           ([2**62, 2**62], "overflow")])
def test_negative_or_absurd_dims(tmp_path, capsys, shape, needle):
    body = json.dumps({"a": {"dtype": "F32", "shape": shape, "data_offsets": [0, 8]}}).encode()
    path = _raw(tmp_path / "a.safetensors", len(body), body + b"\0" * 8)
    _refused(capsys, ["count", "--checkpoint", path], needle)


def test_a_shape_the_library_would_take_is_still_checked():
    from paramcount.analyze.checkpoints.tensors import check_shape

    with pytest.raises(InputFileError, match="more than 2\\^56"):
        check_shape("f", "a", [2**40, 2**40])
    with pytest.raises(InputFileError, match="expected a list of integers"):
        check_shape("f", "a", [True])


def test_an_index_naming_a_missing_shard(tmp_path, capsys):
    write_safetensors(tmp_path / "model-00001-of-00002.safetensors", llama_tensors()[:3])
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {
        "model.embed_tokens.weight": "model-00001-of-00002.safetensors",
        "lm_head.weight": "model-00002-of-00002.safetensors"}}))
    _refused(capsys, ["count", "--checkpoint", str(tmp_path)],
             "names shard 'model-00002-of-00002.safetensors', which is not in")


def test_an_absurd_index_is_not_read(tmp_path, capsys):
    index = tmp_path / "model.safetensors.index.json"
    with index.open("wb") as f:
        f.truncate(10 * 2**30)  # sparse: 10 GB of nothing
    tracemalloc.start()
    _refused(capsys, ["count", "--checkpoint", str(tmp_path)], "an index of 10,737,418,240 bytes")
    assert tracemalloc.get_traced_memory()[1] < 50 * 2**20
    tracemalloc.stop()


def test_an_index_and_its_shards_disagree(tmp_path, capsys):
    write_safetensors(tmp_path / "s1.safetensors", llama_tensors()[:2])
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {
        "model.embed_tokens.weight": "s1.safetensors", "lm_head.weight": "s1.safetensors"}}))
    _refused(capsys, ["count", "--checkpoint", str(tmp_path)],
             "names tensor 'lm_head.weight' in s1.safetensors, which does not hold it")


@pytest.mark.parametrize("name", ["pytorch_model.bin", "model.pt", "consolidated.pth"])
def test_a_pickle_is_refused_unopened(tmp_path, capsys, name):
    path = tmp_path / name
    path.write_bytes(b"\x80\x02cos\nsystem\n")  # never unpickled
    os_mode = path.stat().st_mode
    path.chmod(0)  # not even opened: no read permission needed
    try:
        _refused(capsys, ["count", "--checkpoint", str(path)], "loading one executes the code",
                 "convert it to safetensors")
        _refused(capsys, ["verify", "--checkpoint", str(tmp_path)], "pickle checkpoint")
    finally:
        path.chmod(os_mode)


def test_not_a_checkpoint(tmp_path, capsys):
    _refused(capsys, ["count", "--checkpoint", str(tmp_path / "nope.safetensors")],
             "no checkpoint at")
    (tmp_path / "notes.txt").write_text("x")
    _refused(capsys, ["count", "--checkpoint", str(tmp_path / "notes.txt")],
             "not a checkpoint paramcount reads")
    _refused(capsys, ["count", "--checkpoint", str(tmp_path)], "no checkpoint in this folder")


def test_gptq_packed_weights_count_logically(tmp_path, capsys):
    d, f, group = 64, 128, 32
    tensors = []
    for name, dtype, shape in llama_tensors(v=64, d=d, f=f, kv=32):
        if ".layers." in name and name.endswith("_proj.weight"):
            out, inp = shape
            base = name.removesuffix(".weight")
            tensors += [(base + ".qweight", "I32", (inp // 8, out)),
                        (base + ".qzeros", "I32", (inp // group, out // 8)),
                        (base + ".scales", "F16", (inp // group, out)),
                        (base + ".g_idx", "I32", (inp,))]
        else:
            tensors.append((name, dtype, shape))
    write_safetensors(tmp_path / "model.safetensors", tensors)
    write_config(tmp_path, {**LLAMA_CONFIG, "hidden_size": d, "intermediate_size": f,
                            "quantization_config": {"quant_method": "gptq", "bits": 4,
                                                    "group_size": group}})
    assert main(["verify", "--checkpoint", str(tmp_path)]) == 0
    assert "quantized: gptq 4-bit" in capsys.readouterr().out
    assert main(["count", "--checkpoint", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    matrices = 2 * (2 * d * d + 2 * 32 * d + 3 * f * d)
    terms = {t["term"]: t for t in data["terms"]}
    assert terms["packed weights"]["stored"] == matrices // 8
    assert terms["packed weights"]["built"] == matrices
    assert data["stored_total"] - data["built"] == sum(t["difference"] for t in data["terms"])
    assert data["unexplained"] == 0 and data["logical_total"] == data["built"]
    read_back = read(tmp_path)
    assert read_back.quantization == "gptq 4-bit"
    packed = [t for t in read_back.tensors if t.name.endswith(".qweight")]
    assert all(t.logical == 8 * t.numel for t in packed)
    assert {t.role.split(": ")[0] for t in read_back.tensors if t.role} == {
        "quantization scales", "quantization zero points", "GPTQ group indices"}


def test_gptq_needs_its_bits(tmp_path, capsys):
    write_safetensors(tmp_path / "model.safetensors",
                      [("model.layers.0.mlp.up_proj.qweight", "I32", (2, 16))])
    write_config(tmp_path, {**LLAMA_CONFIG, "quantization_config": {"quant_method": "gptq"}})
    _refused(capsys, ["count", "--checkpoint", str(tmp_path)], "gives no bits")


def test_bitsandbytes_4bit_counts_two_per_byte():
    t = StoredTensor("a.weight", "U8", (512, 1), 512, 512)
    (w,) = quant.unpack([t], {"quant_method": "bitsandbytes", "load_in_4bit": True})
    assert w.logical == 1024
    (s,) = quant.unpack([StoredTensor("a.weight.absmax", "F32", (16,), 64, 16)], None)
    assert s.logical == 0 and "bitsandbytes" in s.role


def test_reading_imports_neither_framework(tmp_path):
    """safetensors verified, a GGUF and a KerasHub preset counted: neither torch nor
    TensorFlow imported (a KerasHub preset's verify builds the Keras model, and imports it)."""
    import subprocess

    import h5py

    from tests._checkpoints import write_gguf

    write_safetensors(tmp_path / "model.safetensors", llama_tensors())
    write_config(tmp_path, LLAMA_CONFIG)
    gguf_path = write_gguf(tmp_path / "m.gguf", "llama", {
        "block_count": 1, "embedding_length": 32, "feed_forward_length": 64,
        "attention.head_count": 4, "attention.head_count_kv": 4},
        [("token_embd.weight", "F32", (8, 32))])
    keras = tmp_path / "preset"
    write_config(keras, {"class_name": "LlamaBackbone", "config": {
        "vocabulary_size": 8, "num_layers": 1, "num_query_heads": 2, "hidden_dim": 4,
        "intermediate_dim": 8, "num_key_value_heads": 1}})
    with h5py.File(keras / "model.weights.h5", "w") as f:
        f.create_dataset("layers/reversible_embedding/vars/0", shape=(8, 4), dtype="f4")
    code = ("import sys; from paramcount.cli.main import main; "
            f"assert main(['verify', '--checkpoint', {str(tmp_path)!r}]) == 0; "
            f"assert main(['count', '--checkpoint', {str(gguf_path)!r}]) == 0; "
            f"assert main(['count', '--checkpoint', {str(keras)!r}]) == 0; "
            "assert 'torch' not in sys.modules and 'tensorflow' not in sys.modules, 'imported'")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Keras .weights.h5, 1 file, 1 tensors" in done.stdout
    assert "GGUF, 1 file, 1 tensors" in done.stdout


def test_the_report_section_lists_formats_tables_and_findings():
    from paramcount.analyze.checkpoints.published import PUBLISHED
    from paramcount.output.report_checkpoints import checkpoints_section

    text = checkpoints_section()
    assert text.startswith("## Checkpoints\n")
    for heading in ("### Formats", "### Stored beside the weights", "### Published layouts",
                    "### GGUF name tables", "### Findings from the full-size headers"):
        assert heading in text
    from paramcount.analyze.checkpoints.gguf_names import TABLES

    for garch, table in TABLES.items():  # every GGUF table, resolved against its family's tree
        assert f"`{garch}` → {table.hf_class} (`" in text
    for row in ("| `blk.0.attn_qkv` | `transformer.h.0.attn.c_attn` | gpt2_causal_lm.blocks.",
                "| `blk.0.attn_kv_a_mqa` | `model.layers.0.self_attn.kv_a_proj_with_mqa` | "
                "deepseek_v3.blocks.attention.kv_down |",
                "| `blk.0.attn_k_b + blk.0.attn_v_b` | `model.layers.0.self_attn.kv_b_proj.weight` "
                "| deepseek_v3.blocks.attention.kv_up |",
                "| `blk.0.ssm_a` | `backbone.layers.0.mixer.A_log` | mamba.blocks.mixer.A_log |",
                "| `blk.0.ffn_gate_exps + blk.0.ffn_up_exps` | "
                "`model.layers.0.mlp.experts.gate_up_proj` | qwen3_moe."):
        assert row in text, row
    for repo, hub, _, terms in PUBLISHED.values():
        extra = sum(n for _, n in terms)
        assert f"| {repo} |" in text and f"| {hub:,} | {hub - extra:,} | {extra:+,} |" in text
    assert "| attention mask buffers +12,582,912 |" in text
    assert "rotary inv_freq buffers" in text and "quantization scales" in text


def _quantized(layout: str, d: int = 64, f: int = 128):
    out = []
    for name, dtype, shape in llama_tensors(v=64, d=d, f=f, kv=32):
        if not (".layers." in name and name.endswith("_proj.weight")):
            out.append((name, dtype, shape))
            continue
        rows, cols = shape  # out × in
        base = name.removesuffix(".weight")
        if layout == "awq":  # packed along the output axis
            out += [(base + ".qweight", "I32", (cols, rows // 8)),
                    (base + ".qzeros", "I32", (cols // 32, rows // 8)),
                    (base + ".scales", "F16", (cols // 32, rows))]
        elif layout == "fp8":  # weights as is, one scale per 128 × 128 block (DeepSeek-V3's)
            out += [(name, "F8_E4M3", shape),
                    (name + "_scale_inv", "F32", (-(-rows // 128), -(-cols // 128)))]
        else:  # bitsandbytes nf4: two 4-bit values per byte, flattened
            out += [(name, "U8", (rows * cols // 2, 1)),
                    (name + ".absmax", "F32", (rows * cols // 64,)),
                    (name + ".quant_map", "F32", (16,)),
                    (name + ".quant_state.bitsandbytes__nf4", "U8", (80,))]
    return out


@pytest.mark.parametrize("layout, qc", [
    ("awq", {"quant_method": "awq", "bits": 4, "group_size": 32, "version": "gemm"}),
    ("fp8", {"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]}),
    ("bnb", {"quant_method": "bitsandbytes", "load_in_4bit": True,
             "bnb_4bit_quant_type": "nf4"}),
])
def test_awq_fp8_and_bitsandbytes_4bit_count_logically(tmp_path, capsys, layout, qc):
    write_safetensors(tmp_path / "model.safetensors", _quantized(layout))
    write_config(tmp_path, {**LLAMA_CONFIG, "hidden_size": 64, "intermediate_size": 128,
                            "quantization_config": qc})
    assert main(["verify", "--checkpoint", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["count", "--checkpoint", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["logical_total"] == data["built"] and data["unexplained"] == 0
    terms = {t["term"] for t in data["terms"]}
    assert terms >= ({"FP8 block scales"} if layout == "fp8" else {"packed weights"})


def test_config_and_id_override_the_config_beside(tmp_path, capsys):
    write_safetensors(tmp_path / "model.safetensors", llama_tensors())
    write_config(tmp_path, {**LLAMA_CONFIG, "num_hidden_layers": 3})  # wrong on purpose
    assert main(["verify", "--checkpoint", str(tmp_path)]) == 1
    assert "MISMATCH llama" in capsys.readouterr().out
    other = tmp_path / "right"
    write_config(other, LLAMA_CONFIG)
    assert main(["verify", "--checkpoint", str(tmp_path), "--config", str(other)]) == 0
    assert main(["verify", "llama", "--checkpoint", str(tmp_path), "--set", "L=2"]) == 0
    _refused(capsys, ["verify", "--checkpoint", str(tmp_path), "--framework", "transformers"],
             "--checkpoint takes no --framework")


def test_a_missing_reader_package_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    write_safetensors(tmp_path / "model.safetensors", llama_tensors())
    monkeypatch.setitem(sys.modules, "safetensors", None)  # as if not installed
    _refused(capsys, ["count", "--checkpoint", str(tmp_path / "model.safetensors")],
             "needs the safetensors package", "pip install 'paramcount[checkpoints]'")


def test_the_report_section_without_gguf_names_the_tables(monkeypatch):
    from paramcount.output.report_checkpoints import checkpoints_section

    monkeypatch.setitem(sys.modules, "gguf", None)  # as if not installed
    text = checkpoints_section()
    assert "Written without the gguf package" in text and "`deepseek2`, `ernie4_5`" in text
