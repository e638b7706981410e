"""GGUF checkpoints written by gguf's own GGUFWriter (tiny, quantized), read back through the
declared GGUF name table and attributed to the formula tree. No torch, no TensorFlow."""

from __future__ import annotations

import json
import struct

import pytest

from paramcount.analyze.checkpoints import read
from paramcount.cli.main import main
from tests._checkpoints import write_gguf

pytest.importorskip("gguf")

D, F, V, L = 256, 512, 512, 2
KV = {"block_count": L, "embedding_length": D, "feed_forward_length": F,
      "attention.head_count": 4, "attention.head_count_kv": 2}


def llama_gguf(tied: bool = False, experts: int = 0, qk_norm: bool = False):
    t = [("token_embd.weight", "Q4_K", (V, D)), ("output_norm.weight", "F32", (D,))]
    if not tied:
        t.append(("output.weight", "Q6_K", (V, D)))
    if tied:  # llama.cpp stores Llama 3.1's rope scaling factors as a tensor
        t.append(("rope_freqs.weight", "F32", (32,)))
    for i in range(L):
        b = f"blk.{i}."
        t += [(b + "attn_norm.weight", "F32", (D,)), (b + "attn_q.weight", "Q4_K", (D, D)),
              (b + "attn_k.weight", "Q4_K", (128, D)), (b + "attn_v.weight", "Q8_0", (128, D)),
              (b + "attn_output.weight", "Q4_K", (D, D)), (b + "ffn_norm.weight", "F32", (D,))]
        if qk_norm:
            t += [(b + "attn_q_norm.weight", "F32", (64,)), (b + "attn_k_norm.weight", "F32", (64,))]
        if experts:
            t += [(b + "ffn_gate_inp.weight", "F32", (experts, D)),
                  (b + "ffn_gate_exps.weight", "Q4_K", (experts, F, D)),
                  (b + "ffn_up_exps.weight", "Q4_K", (experts, F, D)),
                  (b + "ffn_down_exps.weight", "Q4_K", (experts, D, F))]
        else:
            t += [(b + "ffn_gate.weight", "Q4_K", (F, D)), (b + "ffn_up.weight", "Q4_K", (F, D)),
                  (b + "ffn_down.weight", "Q4_K", (D, F))]
    return t


def _count(capsys, path) -> dict:
    assert main(["count", "--checkpoint", str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_q4_k_llama_matches_and_its_bytes_are_whole_blocks(tmp_path, capsys):
    path = write_gguf(tmp_path / "m.gguf", "llama", KV, llama_gguf())
    assert main(["verify", "--checkpoint", str(path)]) == 0
    out = capsys.readouterr().out
    assert "as llama: v=512, L=2, M=4, M_kv=2, d_e=256, d_f=512, tied=0" in out
    assert "GGUF, 1 file, 21 tensors, quantized: Q4_K, Q6_K, Q8_0" in out
    data = _count(capsys, path)
    per_block = 2 * D * D + 2 * 128 * D + 3 * F * D + 2 * D
    assert data["stored_total"] == data["built"] == 2 * V * D + D + L * per_block
    q4 = data["stored"]["Q4_K"]
    assert q4["bytes"] == q4["elements"] // 256 * 144  # Q4_K: 144 bytes per 256 weights
    assert data["stored"]["Q8_0"]["bytes"] == data["stored"]["Q8_0"]["elements"] // 32 * 34


def test_a_tied_head_is_stored_once_and_rope_factors_are_a_term(tmp_path, capsys):
    path = write_gguf(tmp_path / "m.gguf", "llama", KV, llama_gguf(tied=True))
    assert main(["verify", "--checkpoint", str(path)]) == 0
    assert "head is tied to the token embedding and stored once" in capsys.readouterr().out
    data = _count(capsys, path)
    assert [(t["term"], t["difference"]) for t in data["terms"]] == [
        ("rope frequency factors", 32)]


def test_experts_stored_apart_are_joined_as_transformers_fuses_them(tmp_path, capsys):
    kv = {**KV, "expert_count": 4, "expert_used_count": 2}
    path = write_gguf(tmp_path / "m.gguf", "llama", kv, llama_gguf(experts=4))
    assert main(["verify", "--checkpoint", str(path)]) == 0
    out = capsys.readouterr().out
    assert "(GGUF metadata, MixtralForCausalLM) as mixtral" in out
    assert "match    mixtral" in out


def test_qwen3_names(tmp_path, capsys):
    path = write_gguf(tmp_path / "m.gguf", "qwen3", {**KV, "attention.key_length": 64},
                      llama_gguf(qk_norm=True))
    assert main(["verify", "--checkpoint", str(path)]) == 0
    assert "match    qwen3" in capsys.readouterr().out


def test_an_architecture_without_a_name_table_is_refused(tmp_path, capsys):
    path = write_gguf(tmp_path / "m.gguf", "rwkv6", {"block_count": 1},
                      [("token_embd.weight", "F32", (8, 4))])
    assert main(["count", "--checkpoint", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "GGUF architecture 'rwkv6' has no name table in paramcount; known: bert, bloom, cohere2, command-r, " in err


@pytest.mark.parametrize("body", [b"GGUF", b"GGUF" + struct.pack("<I", 3) + b"\xff" * 30,
                                  b"NOPE" + b"\0" * 40])
def test_a_damaged_gguf_is_one_line(tmp_path, capsys, body):
    path = tmp_path / "m.gguf"
    path.write_bytes(body)
    assert main(["count", "--checkpoint", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err


def test_the_logical_shape_is_row_major(tmp_path):
    path = write_gguf(tmp_path / "m.gguf", "llama", KV, llama_gguf())
    t = next(t for t in read(path).tensors if t.name == "blk.0.attn_k.weight")
    assert t.shape == (128, D) and t.weight_name == "model.layers.0.self_attn.k_proj.weight"


def test_an_absurd_metadata_string_is_not_read(tmp_path, capsys):
    import tracemalloc

    key = b"general.name"
    head = (b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", len(key)) + key
            + struct.pack("<IQ", 8, 10 * 2**30))  # a string value of 10 GB
    path = tmp_path / "m.gguf"
    with path.open("wb") as f:
        f.write(head)
        f.truncate(len(head) + 10 * 2**30 + 64)  # sparse
    tracemalloc.start()
    assert main(["count", "--checkpoint", str(path)]) == 2
    assert tracemalloc.get_traced_memory()[1] < 50 * 2**20
    tracemalloc.stop()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'general.name' takes 10,737,418," in err


def test_a_full_size_llama_3_1_8b_at_q4_k_costs_no_disk(tmp_path, capsys):
    """Llama-3.1-8B as llama.cpp's Q4_K_M stores it (Q4_K matrices, Q6_K head and every value
    and down projection of alternate blocks, F32 norms, the rope factors): a 4.9 GB file whose
    data is a sparse hole, checked tensor by tensor from its header."""
    d, f, v, layers, kv = 4096, 14336, 128256, 32, 1024
    t = [("token_embd.weight", "Q4_K", (v, d)), ("output_norm.weight", "F32", (d,)),
         ("output.weight", "Q6_K", (v, d)), ("rope_freqs.weight", "F32", (64,))]
    for i in range(layers):
        b, hi = f"blk.{i}.", "Q6_K" if i % 2 == 0 else "Q4_K"
        t += [(b + "attn_norm.weight", "F32", (d,)), (b + "attn_q.weight", "Q4_K", (d, d)),
              (b + "attn_k.weight", "Q4_K", (kv, d)), (b + "attn_v.weight", hi, (kv, d)),
              (b + "attn_output.weight", "Q4_K", (d, d)), (b + "ffn_norm.weight", "F32", (d,)),
              (b + "ffn_gate.weight", "Q4_K", (f, d)), (b + "ffn_up.weight", "Q4_K", (f, d)),
              (b + "ffn_down.weight", hi, (d, f))]
    kv_meta = {"block_count": layers, "embedding_length": d, "feed_forward_length": f,
               "attention.head_count": 32, "attention.head_count_kv": 8}
    path = write_gguf(tmp_path / "Meta-Llama-3.1-8B-Q4_K_M.gguf", "llama", kv_meta, t)
    assert path.stat().st_size > 4_500_000_000 and path.stat().st_blocks * 512 < 2**20
    assert main(["verify", "--checkpoint", str(path)]) == 0
    assert "match    llama" in capsys.readouterr().out
    data = _count(capsys, path)
    assert data["built"] == 8_030_261_248  # Meta-Llama-3-8B's figure: the same model
    assert data["stored_total"] == 8_030_261_248 + 64 and data["unexplained"] == 0
    assert [(x["term"], x["difference"]) for x in data["terms"]] == [
        ("rope frequency factors", 64)]
    q4, q6 = data["stored"]["Q4_K"], data["stored"]["Q6_K"]
    assert q4["bytes"] * 256 == q4["elements"] * 144 and q6["bytes"] * 256 == q6["elements"] * 210
    assert data["stored_bytes"] == sum(x["bytes"] for x in data["stored"].values())


@pytest.mark.parametrize("shape", [(2**50, 2**20), (0, 2**62)])
def test_a_gguf_tensor_of_absurd_dims_is_one_line(tmp_path, capsys, shape):
    import gguf
    import numpy as np

    path = tmp_path / "m.gguf"
    w = gguf.GGUFWriter(path, "llama")
    w.add_uint32("llama.block_count", 1)
    w.add_tensor_info("token_embd.weight", shape, np.dtype(np.float32), 64,
                      raw_dtype=gguf.GGMLQuantizationType.F32)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    w.close()
    with path.open("r+b") as f:
        f.truncate(f.seek(0, 2) + 128)
    import tracemalloc

    tracemalloc.start()
    assert main(["count", "--checkpoint", str(path)]) == 2
    assert tracemalloc.get_traced_memory()[1] < 50 * 2**20
    tracemalloc.stop()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{path}: not a readable GGUF file" in err, err


def test_every_table_is_a_gguf_architecture_read_as_a_class_paramcount_reads():
    import gguf

    from paramcount.analyze.checkpoints.gguf_names import TABLES
    from paramcount.analyze.configs import tables

    classes = {(t.model_type, c) for t in tables() for c in t.hf_classes}
    for garch, table in TABLES.items():
        assert garch in gguf.MODEL_ARCH_NAMES.values(), garch
        assert (table.model_type, table.hf_class) in classes, garch
        if table.moe:
            assert table.moe in classes, garch


def test_a_config_json_beside_the_file_overrides_its_metadata(tmp_path, capsys):
    path = write_gguf(tmp_path / "m.gguf", "llama", KV, llama_gguf())
    assert main(["count", "--checkpoint", str(path)]) == 0
    # one description, the file's: not also "(transformers config, LlamaForCausalLM)"
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"read {path} (GGUF metadata, LlamaForCausalLM) as llama: ")
    assert main(["count", "--checkpoint", str(path), "--json"]) == 0
    config = json.loads(capsys.readouterr().out)["config"]
    assert (config["file"], config["source"], config["class"]) == (
        str(path), "GGUF metadata", "LlamaForCausalLM")
    cfg = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": V,
           "hidden_size": D, "intermediate_size": F, "num_hidden_layers": L,
           "num_attention_heads": 4, "num_key_value_heads": 4, "tie_word_embeddings": False}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    assert main(["verify", "--checkpoint", str(path)]) == 1  # 4 KV heads: k, v too wide
    out = capsys.readouterr().out
    assert f"read {tmp_path / 'config.json'}" in out and "M_kv=4" in out and "MISMATCH" in out


def test_a_lone_file_whose_metadata_do_not_give_the_config_says_why(tmp_path, capsys):
    path = write_gguf(tmp_path / "m.gguf", "mamba", {"block_count": 2, "embedding_length": 4},
                      [("token_embd.weight", "F32", (8, 4))])
    assert main(["count", "--checkpoint", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "GGUF metadata lack what 'mamba' needs" in err
    assert "give --config PATH (or put the model's config.json beside it)" in err
    path = write_gguf(tmp_path / "m.gguf", "t5", {"block_count": 2},
                      [("token_embd.weight", "F32", (8, 4))])
    assert main(["count", "--checkpoint", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "GGUF metadata has no t5.embedding_length" in err
    path = write_gguf(tmp_path / "m.gguf", "qwen35", {"block_count": 4_000_000_000,
                                                      "embedding_length": 4},
                      [("token_embd.weight", "F32", (8, 4))])
    assert main(["count", "--checkpoint", str(path)]) == 2  # never walks 4e9 blocks
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "qwen35.block_count = 4000000000: expected" in err
    path = write_gguf(tmp_path / "m.gguf", "llama", KV, [("blk.4000000000.attn_q.weight", "F32",
                                                          (4, 4))])
    assert main(["count", "--checkpoint", str(path)]) == 2  # never maps 4e9 blocks' names
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "block 4,000,000,000: a damaged header" in err


def test_every_table_reads_the_config_from_the_metadata():
    """A user holding only a .gguf file gets the count: every table declares its metadata
    mapping (test_checkpoints_gguf_hf.py reads a lone file of each)."""
    from paramcount.analyze.checkpoints.gguf_names import TABLES

    assert [g for g, t in TABLES.items() if t.config is None] == []


def test_a_full_size_lone_bert_base_gguf_names_the_pooler_its_converter_dropped(tmp_path, capsys):
    """bert-base-uncased as llama.cpp writes it (F16 matrices, F32 norms and biases, no pooler),
    alone: its metadata give BERT's config, and the 109,482,240 of BertModel are the stored
    108,891,648 and the pooler's 590,592, a named term."""
    d, f, v, layers = 768, 3072, 30522, 12
    t = [("token_embd.weight", "F16", (v, d)), ("position_embd.weight", "F16", (512, d)),
         ("token_types.weight", "F32", (2, d)), ("token_embd_norm.weight", "F32", (d,)),
         ("token_embd_norm.bias", "F32", (d,))]
    for i in range(layers):
        b = f"blk.{i}."
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            t += [(b + name + ".weight", "F16", (d, d)), (b + name + ".bias", "F32", (d,))]
        t += [(b + "ffn_up.weight", "F16", (f, d)), (b + "ffn_up.bias", "F32", (f,)),
              (b + "ffn_down.weight", "F16", (d, f)), (b + "ffn_down.bias", "F32", (d,))]
        t += [(b + n + s, "F32", (d,)) for n in ("attn_output_norm", "layer_output_norm")
              for s in (".weight", ".bias")]
    kv = {"context_length": 512, "embedding_length": d, "feed_forward_length": f,
          "block_count": layers, "attention.head_count": 12, "tokenizer.ggml.model": "bert"}
    path = write_gguf(tmp_path / "bert-base-uncased-f16.gguf", "bert", kv, t)
    assert main(["verify", "--checkpoint", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"read {path} (GGUF metadata, BertModel) as bert: v=30522, L=12, M=12, d_e=768" in out
    data = _count(capsys, path)
    assert data["built"] == 109_482_240 and data["stored_total"] == 108_891_648
    assert [(x["term"], x["delta"], x["difference"]) for x in data["terms"]] == [
        ("pooler dropped by the converter", "pooler", -590_592)]
    assert data["unexplained"] == 0
