"""Checkpoints written as transformers' save_pretrained writes them (headers from a meta-device
build, the data a sparse hole), checked by ``verify --checkpoint`` tensor by tensor. The
builds run in torch workers (this process may hold TensorFlow); skipped without torch."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from paramcount.verify import transformers_missing

if transformers_missing():  # this process may hold TensorFlow: torch runs in torch workers
    pytest.skip("the transformers extra is not installed", allow_module_level=True)

from paramcount import configs, registry
from paramcount.checkpoints import check, readers
from paramcount.checkpoints.published import PUBLISHED
from paramcount.cli import main
from paramcount.errors import Refused
from tests._checkpoints import write_safetensors, write_sharded
from tests._hf_checkpoints import save, state

CONFIGS = Path(__file__).with_name("configs")


def _with_reference() -> list[str]:
    return sorted(a for a, arch in registry.architectures().items()
                  if arch.transformers is not None)


def _buildable(arch):
    """The smallest example set transformers builds and a config reads back (a set that needs
    a flag transformers cannot switch, or dense blocks among experts, is passed over)."""
    for hs in sorted(arch.hparam_sets(), key=lambda h: arch.count(h.hparams)):
        hp = arch.resolve(hs.hparams)
        try:
            tensors, cfg = state(arch, hp)
            reading = configs.read_data(cfg, "config.json", arch.id)
        except (Refused, configs.InputFileError):
            continue
        return hs.name, tensors, cfg, arch.resolve(reading.hparams)
    raise AssertionError(f"{arch.id}: no example set transformers builds")


@pytest.mark.parametrize("arch_id", _with_reference())
def test_every_family_with_a_transformers_reference_matches_tensor_by_tensor(arch_id, tmp_path):
    arch = registry.get(arch_id)
    _, tensors, cfg, hp = _buildable(arch)
    write_safetensors(tmp_path / "model.safetensors", tensors)
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    c = check.check(readers.read(tmp_path), arch, hp, "transformers")
    assert c.ok, c.verification.mismatches()
    assert not c.extras and not c.missing and c.unexplained == 0
    assert c.checkpoint.stored_total == c.built == sum(r.actual for r in c.verification.components)


# How the published MoE checkpoints store their experts: gate, up, down and the block's name.
_EXPERTS = {"mixtral-8x7b-v0.1.json": ("w1", "w3", "w2", ".block_sparse_moe."),
            "qwen3-30b-a3b.json": ("gate_proj", "up_proj", "down_proj", ".mlp."),
            "deepseek-v3.json": ("gate_proj", "up_proj", "down_proj", ".mlp.")}


# Qwen3-30B-A3B's 18,432 expert tensors take about 10 s: in the slow run (Mixtral's layout,
# the same mechanism, stays in the default one).
_SLOW = {"qwen3-30b-a3b.json", "deepseek-v3.json"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in _SLOW else n
                                  for n in sorted(PUBLISHED)])
def test_full_size_headers_of_published_models(name, tmp_path, capsys):
    """Each published model's full-size header, with the names its safetensors store, matches
    tensor by tensor, and its Hub figure is the formula's (with transformers' deltas)."""
    reading = configs.read_config(CONFIGS / name)
    arch = registry.get(reading.arch)
    tensors, _ = state(arch, arch.resolve(reading.hparams))
    if name in _EXPERTS:
        tensors = _published_experts(tensors, _EXPERTS[name])
        assert any(".experts.7." in t[0] for t in tensors)
    if name == "deepseek-v3.json":
        tensors = _deepseek_v3_published(tensors)
    if name == "gpt2.json":  # saved by the original GPT2LMHeadModel: names without the prefix,
        # each block's causal mask buffer stored
        tensors = [(n.removeprefix("transformer."), d, s) for n, d, s in tensors]
        tensors += [(f"h.{i}.attn.bias", "F32", (1, 1, 1024, 1024)) for i in range(12)]
    write_sharded(tmp_path, tensors, shards=4)
    cfg = json.loads((CONFIGS / name).read_text())
    if name == "deepseek-v3.json":  # as published: FP8 weights in 128 × 128 blocks
        cfg["quantization_config"] = {"quant_method": "fp8", "fmt": "e4m3",
                                      "weight_block_size": [128, 128]}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    headers = (tmp_path / "model.safetensors.index.json").stat().st_size
    for f in tmp_path.glob("*.safetensors"):
        with f.open("rb") as fh:
            headers += 8 + int.from_bytes(fh.read(8), "little")
    assert sum(f.stat().st_blocks for f in tmp_path.iterdir()) * 512 < headers + 2**22  # sparse
    assert main(["verify", "--checkpoint", str(tmp_path)]) == 0
    assert main(["count", "--checkpoint", str(tmp_path), "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out[out.index("{\n"):])
    _, hub, _, terms = PUBLISHED[name]
    assert data["stored_total"] == hub
    assert [(t["term"], t["difference"]) for t in data["terms"]] == list(terms)
    if name == "deepseek-v3.json":  # 685B = 671B + the MTP term transformers' delta removes
        assert data["terms"][1]["delta"] == "mtp"
    assert data["built"] == hub - sum(n for _, n in terms) and data["unexplained"] == 0


def _deepseek_v3_published(tensors, layers: int = 61, fp8: bool = True):
    """DeepSeek-V3's published layout: its multi-token-prediction module as layer 61 (a MoE
    layer, with its own embedding, two norms, eh_proj and a shared head), one tensor per expert,
    each block's projection in FP8 with a 128 × 128-block ``weight_scale_inv`` beside it, the
    router bias in F32. The per-dtype sums are the Hub's (BF16 3,918,786,560, F8_E4M3
    680,571,043,840, F32 41,555,600)."""
    v, d = next(s for n, _, s in tensors if n == "model.embed_tokens.weight")
    last, mtp = f"model.layers.{layers - 1}.", f"model.layers.{layers}."
    tensors = tensors + [(n.replace(last, mtp), t, s) for n, t, s in tensors
                         if n.startswith(last)]
    tensors += [(mtp + "embed_tokens.weight", "BF16", (v, d)),
                (mtp + "enorm.weight", "BF16", (d,)), (mtp + "hnorm.weight", "BF16", (d,)),
                (mtp + "eh_proj.weight", "BF16", (d, 2 * d)),
                (mtp + "shared_head.norm.weight", "BF16", (d,)),
                (mtp + "shared_head.head.weight", "BF16", (v, d))]
    out = []
    for n, t, s in tensors:  # experts already one tensor each (_EXPERTS)
        if n.endswith("e_score_correction_bias"):
            out.append((n, "F32", s))
        elif fp8 and n.endswith(("proj.weight", "proj_with_mqa.weight")) and "eh_proj" not in n:
            out += [(n, "F8_E4M3", s),
                    (n + "_scale_inv", "F32", (-(-s[0] // 128), -(-s[1] // 128)))]
        else:
            out.append((n, t, s))
    return out


def test_deepseek_v3s_mtp_layer_is_the_formulas_own_term_put_back(tmp_path, capsys):
    """The MTP module a DeepSeek-V3 checkpoint stores as layer L is, count for count, the term
    the formula has and transformers' delta removes: named by that delta (its path, its reason),
    and the stored figure is the tree with it put back."""
    arch = registry.get("deepseek_v3")
    hp = arch.resolve(arch.preset("tiny_mtp").hparams)
    tensors, cfg = state(arch, hp)
    write_safetensors(tmp_path / "model.safetensors",
                      _deepseek_v3_published(tensors, hp["L"], fp8=False))
    (tmp_path / "config.json").write_text(json.dumps({**cfg, "num_nextn_predict_layers": 1}))
    assert main(["verify", "--checkpoint", str(tmp_path)]) == 0
    assert main(["count", "--checkpoint", str(tmp_path), "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out[out.index("{\n"):])
    def every(n_mtp):  # trainable and not (the router's score-correction bias is a buffer)
        h = {**hp, "n_mtp": n_mtp}
        return arch.count(h) + arch.count_nontrainable(h)
    mtp = every(1) - every(0)
    assert [(t["term"], t["delta"], t["difference"]) for t in data["terms"]] == [
        ("multi-token-prediction layers", "mtp", mtp)]
    assert "the formula's term `mtp`, which the transformers model leaves out" in (
        data["terms"][0]["reason"])
    assert data["stored_total"] == data["built"] + mtp and data["unexplained"] == 0


def _llama(tmp_path: Path, name: str = "llama-2-7b-hf.json"):
    reading = configs.read_config(CONFIGS / name)
    arch = registry.get(reading.arch)
    tensors, _ = state(arch, arch.resolve(reading.hparams))
    return tensors


def test_a_sharded_folder_reads_every_shard(tmp_path, capsys):
    folder = write_sharded(tmp_path / "ckpt", _llama(tmp_path), shards=3)
    shutil.copy(CONFIGS / "llama-2-7b-hf.json", folder / "config.json")
    assert main(["verify", "--checkpoint", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "safetensors, 3 files, 291 tensors" in out
    assert "match    llama" in out and "diff +0" in out


def test_stored_inv_freq_buffers_are_a_named_term(tmp_path, capsys):
    tensors = _llama(tmp_path)
    tensors += [(f"model.layers.{i}.self_attn.rotary_emb.inv_freq", "F32", (64,))
                for i in range(32)]
    write_safetensors(tmp_path / "model.safetensors", tensors)
    shutil.copy(CONFIGS / "llama-2-7b-hf.json", tmp_path / "config.json")
    assert main(["verify", "--checkpoint", str(tmp_path)]) == 0
    assert main(["count", "--checkpoint", str(tmp_path), "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out[out.index("{"):])
    assert data["stored_total"] == 6_738_415_616 + 32 * 64
    assert [(t["term"], t["difference"]) for t in data["terms"]] == [
        ("rotary inv_freq buffers", 2048)]
    assert data["unexplained"] == 0


def test_a_tied_head_stored_twice_is_a_named_term(tmp_path, capsys):
    data = json.loads((CONFIGS / "llama-3.2-1b.json").read_text())
    assert data["tie_word_embeddings"] is True
    reading = configs.read_config(CONFIGS / "llama-3.2-1b.json")
    arch = registry.get(reading.arch)
    tensors, _ = state(arch, arch.resolve(reading.hparams))
    assert "lm_head.weight" not in [t[0] for t in tensors]  # save_pretrained stores it once
    write_safetensors(tmp_path / "model.safetensors", tensors)
    shutil.copy(CONFIGS / "llama-3.2-1b.json", tmp_path / "config.json")
    assert main(["verify", "--checkpoint", str(tmp_path)]) == 0
    assert "head is tied to the token embedding and stored once" in capsys.readouterr().out
    emb = next(t for t in tensors if t[0] == "model.embed_tokens.weight")
    write_safetensors(tmp_path / "model.safetensors", [*tensors, ("lm_head.weight", *emb[1:])])
    assert main(["count", "--checkpoint", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    v, d = 128256, 2048
    assert out["stored_total"] == out["built"] + v * d
    assert [(t["term"], t["difference"]) for t in out["terms"]] == [
        ("tied head stored twice", v * d)]
    assert main(["verify", "--checkpoint", str(tmp_path)]) == 0


def test_layers_beyond_the_stack_are_a_named_term_and_a_missing_tensor_is_named(tmp_path,
                                                                                 capsys):
    tensors = _llama(tmp_path)
    mtp = [(n.replace("model.layers.0.", "model.layers.32."), d, s) for n, d, s in tensors
           if n.startswith("model.layers.0.")]
    write_safetensors(tmp_path / "model.safetensors", [*tensors, *mtp])
    shutil.copy(CONFIGS / "llama-2-7b-hf.json", tmp_path / "config.json")
    assert main(["count", "--checkpoint", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    per_layer = sum(s[0] * (s[1] if len(s) > 1 else 1) for _, _, s in mtp)
    line = next(ln for ln in out.splitlines() if "layers beyond the config's stack" in ln)
    assert line.split()[5] == f"{per_layer:+,}:" and "L = 32" in line
    kept = [t for t in tensors if t[0] != "model.norm.weight"]
    write_safetensors(tmp_path / "model.safetensors", kept)
    assert main(["verify", "--checkpoint", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "no tensor for llama.final_norm (4,096 parameters in the formula)" in out
    assert "MISMATCH llama" in out


def test_an_unclaimed_tensor_is_named(tmp_path, capsys):
    save(tmp_path, registry.get("llama"), registry.get("llama").resolve(
        registry.get("llama").preset("tiny_mqa").hparams))
    tensors = [(n, "BF16", (2, 3)) for n in ("model.layers.0.self_attn.mystery.weight",)]
    ck = readers.read(tmp_path)
    write_safetensors(tmp_path / "model.safetensors",
                      [(t.name, t.dtype, t.shape) for t in ck.tensors] + tensors)
    assert main(["verify", "--checkpoint", str(tmp_path)]) == 1
    assert ("unclaimed tensor model.layers.0.self_attn.mystery.weight [2, 3] (6)"
            in capsys.readouterr().out)


def _published_experts(tensors, names):
    """transformers 5's stacked experts back to the layout published checkpoints store: one
    tensor per expert and piece (``names``: gate, up, down and the block's rename)."""
    gate, up, down, rename = names
    out = []
    for name, dtype, shape in tensors:
        if name.endswith("mlp.experts.gate_up_proj"):
            e, two_f, d = shape
            base = name.removesuffix("gate_up_proj").replace(".mlp.", rename)
            for i in range(e):
                out += [(f"{base}{i}.{gate}.weight", dtype, (two_f // 2, d)),
                        (f"{base}{i}.{up}.weight", dtype, (two_f // 2, d))]
        elif name.endswith("mlp.experts.down_proj"):
            e, d, f = shape
            base = name.removesuffix("down_proj").replace(".mlp.", rename)
            out += [(f"{base}{i}.{down}.weight", dtype, (d, f)) for i in range(e)]
        else:
            out.append((name.replace(".mlp.", rename) if ".mlp.gate." in name else name,
                        dtype, shape))
    return out


# Families llama.cpp converts: case → (our id, its GGUF architecture, a set, or the smallest).
# (Falcon-RW's sequential layout, falcon with post_attention_layernorm, is not among them, nor
# an untied Cohere: llama.cpp's command-r has no output tensor.)
_GGUF = {"llama": ("llama", "llama", None), "llama3": ("llama3", "llama", None),
         "mistral": ("mistral", "llama", None), "qwen": ("qwen", "qwen2", None),
         "qwen3": ("qwen3", "qwen3", None), "gemma": ("gemma", "gemma", None),
         "gemma2": ("gemma", "gemma2", "tiny_gemma2"), "gemma3": ("gemma3", "gemma3", None),
         "phi3": ("phi3", "phi3", None), "mixtral": ("mixtral", "llama", None),
         "qwen_moe": ("qwen_moe", "qwen2moe", "tiny_mha_untied"),
         "qwen3_moe": ("qwen3_moe", "qwen3moe", "tiny_default_heads"),
         "gpt2": ("gpt2_causal_lm", "gpt2", None), "gpt_j": ("gpt_j", "gptj", "tiny"),
         "gpt_neo_x": ("gpt_neo_x", "gptneox", "tiny"), "phi": ("phi", "phi2", "tiny"),
         "bloom": ("bloom", "bloom", None),
         "falcon_40b": ("falcon_parallel", "falcon", "tiny_gqa_two_norms"),
         "falcon_7b": ("falcon_parallel", "falcon", "tiny_mqa"),
         "olmo2": ("olmo2", "olmo2", "tiny"), "olmoe": ("olmoe", "olmoe", "tiny"),
         "granite": ("granite", "granite", "tiny"), "cohere": ("cohere", "command-r", "tiny"),
         "deepseek_v2": ("deepseek_v2", "deepseek2", "tiny"),
         # as older llama.cpp converters store MLA: kv_b_proj whole (attn_kv_b)
         "deepseek_v2_kv_b": ("deepseek_v2", "deepseek2", "tiny"),
         "deepseek_v3": ("deepseek_v3", "deepseek2", "tiny"),
         "mamba": ("mamba", "mamba", "tiny"), "mamba2": ("mamba2", "mamba2", "tiny"),
         "smollm3": ("smollm3", "smollm3", "tiny"), "gpt_oss": ("gpt_oss", "gpt-oss", "tiny"),
         "glm4_moe": ("glm4_moe", "glm4moe", "tiny"), "phimoe": ("phimoe", "phimoe", "tiny"),
         "llama4": ("llama4_text", "llama4", "tiny"),
         "granite_biases": ("granite", "granite", "tiny_biases_untied"),
         "starcoder2": ("starcoder2", "starcoder2", None),
         "cohere2": ("cohere2", "cohere2", "tiny"),  # llama.cpp's cohere2 is tied only
         # llama.cpp converts OLMo 3 as olmo2 (the same tensors; sliding windows in metadata)
         "olmo3": ("olmo3", "olmo2", None), "ernie4_5": ("ernie4_5", "ernie4_5", None),
         "ernie4_5_moe": ("ernie4_5_moe", "ernie4_5-moe", None),
         "ernie4_5_moe_shared": ("ernie4_5_moe", "ernie4_5-moe", "tiny"),
         "minimax_m2": ("minimax_m2", "minimax-m2", None), "dbrx": ("dbrx", "dbrx", None),
         "granitemoe": ("granitemoe", "granitemoe", None), "jamba": ("jamba", "jamba", None),
         "falcon_h1": ("falcon_h1", "falcon-h1", None),
         "nemotron_h": ("nemotron_h", "nemotron_h", None),
         "nemotron_h_moe": ("nemotron_h", "nemotron_h_moe", "tiny"),
         "granitemoehybrid": ("granitemoehybrid", "granitehybrid", "tiny"),
         "granitemoehybrid_dense": ("granitemoehybrid", "granitehybrid", "tiny_dense_odd"),
         "qwen3_next": ("qwen3_next", "qwen3next", None),
         # the smallest Qwen 3.5 sets with linear-attention layers
         "qwen3_5": ("qwen3_5", "qwen35", "tiny_odd_tied"),
         "qwen3_5_moe": ("qwen3_5_moe", "qwen35moe", "tiny_odd_tied"),
         "gemma3_embedding": ("gemma3_embedding", "gemma-embedding", None),
         # llama.cpp converts DistilBERT as bert (BERT, RoBERTa and XLM-R too, but dropping
         # their pooler, which BertModel builds: no table explains a tensor a converter drops)
         "distil_bert": ("distil_bert", "bert", None), "t5": ("t5", "t5", None),
         "gemma3n": ("gemma3n", "gemma3n", "tiny"),  # the smallest set with AltUp projections
         "gemma4": ("gemma4", "gemma4", None), "gemma4_k_eq_v": ("gemma4", "gemma4", "tiny_k_eq_v")}


def _gguf_name(names, name: str, shape: tuple, cfg: dict, split_kv_b: bool = True
               ) -> list[tuple[str, str, tuple]]:
    """llama.cpp's name for a transformers tensor, as its converter stores it: stacked experts'
    gate_up_proj split into ffn_gate_exps and ffn_up_exps, MLA's kv_b_proj into attn_k_b
    (transposed) and attn_v_b, DeepSeek's router bias renamed first, BLOOM's prefix dropped,
    DBRX's experts reshaped to one slice each."""
    if ".altup_" in name and "projections." in name:  # Gemma 3n's, stacked by llama.cpp
        n = cfg["altup_num_inputs"] - 1
        stem = "altup_unembd_proj" if "unembed" in name else "altup_proj"
        return [(f"{stem}.weight", "F32", (n, *shape))] if ".0.weight" in name else []
    if ".shared_mlp." in name:  # Granite 4.0-H's: ffn_*_shexp beside experts, else ffn_*
        blk, sh = f"blk.{name.split('.')[2]}.ffn_", "_shexp" if cfg.get("num_local_experts") else ""
        if "input_linear" in name:
            return [(f"{blk}{p}{sh}.weight", "F32", (shape[0] // 2, shape[1]))
                    for p in ("gate", "up")]
        return [(f"{blk}down{sh}.weight", "F32", shape)]
    if ".mixer.experts." in name:  # Nemotron-H's, stacked by llama.cpp's converter itself
        return [(f"blk.{name.split('.')[2]}.ffn_{name.rpartition('.')[2][:-5]}_exps.weight",
                 "F32", shape)]
    name = name.replace("block_sparse_moe.experts.", "mlp.experts.")  # Granite MoE's
    if name.endswith("experts.gate_up_proj"):
        e, two_f, d = shape
        blk = names.get_name(name.replace("gate_up_proj", "down_proj")).replace("down", "{}")
        return [(blk.format(p) + ".weight", "F32", (e, two_f // 2, d)) for p in ("gate", "up")]
    if name.endswith("experts.gate_up_proj_bias"):  # gpt-oss
        e, two_f = shape
        blk = names.get_name(name.replace("gate_up_proj_bias", "down_proj")).replace("down", "{}")
        return [(blk.format(p) + ".bias", "F32", (e, two_f // 2)) for p in ("gate", "up")]
    if name.endswith("experts.down_proj_bias"):
        return [(names.get_name(name.replace("down_proj_bias", "down_proj")) + ".bias", "F32",
                 shape)]
    if split_kv_b and name.endswith("self_attn.kv_b_proj.weight"):
        h, nope, v = (cfg["num_attention_heads"], cfg["qk_nope_head_dim"], cfg["v_head_dim"])
        blk = names.get_name(name.replace("kv_b_proj", "k_b_proj"), try_suffixes=(".weight",))
        return [(blk, "F32", (h, shape[1], nope)),
                (blk.replace("attn_k_b", "attn_v_b"), "F32", (h, v, shape[1]))]
    if ".ffn.experts.mlp." in name:  # DBRX's (E·F, D) experts, stored per expert
        e = cfg["ffn_config"]["moe_num_experts"]
        ef, d = shape
        shape = (e, d, ef // e) if name.endswith(".w2") else (e, ef // e, d)
    name = name.replace("e_score_correction_bias", "e_score_correction.bias").replace(
        "mixer.dt_bias", "mixer.dt_proj.bias").replace(".gate.moe_statics.", ".moe_statics.").replace(
        "mamba.dt_bias", "mamba.dt_proj.bias").replace(
        "linear_attn.dt_bias", "linear_attn.dt_proj.bias").replace(
        "block_sparse_moe.router.weight", "block_sparse_moe.router.layer.weight")
    g = names.get_name(name, try_suffixes=(".weight", ".bias"))
    if g is None and name.startswith("transformer."):
        g = names.get_name(name.removeprefix("transformer."), try_suffixes=(".weight", ".bias"))
    if g is None and name.startswith("model."):  # Nemotron-H's hub names: backbone.
        g = names.get_name("backbone." + name.removeprefix("model."),
                           try_suffixes=(".weight", ".bias"))
    if g is not None and name.endswith(("_scale", "layer_scalar")):  # Gemma 3n's, Gemma 4's
        g += ".weight"  # as llama.cpp's converter stores its bare scales
    if g is not None and name.endswith((".weight", ".bias")) and not g.endswith(
            (".weight", ".bias")):
        g += "." + name.rpartition(".")[2]
    return [(g, "F32", shape)]


@pytest.mark.parametrize("case", sorted(_GGUF))
def test_gguf_named_by_llama_cpps_own_map_matches(case, tmp_path, capsys):
    """The tiny transformers model's tensors under the GGUF names llama.cpp's converter gives
    them (gguf's TensorNameMap), written by GGUFWriter: read back through paramcount's table
    (gguf's map inverted, the candidate the family's tree claims kept), every tensor lands on
    its formula leaf. The config is the GGUF metadata's where the table reads them, else the
    config.json beside the file."""
    pytest.importorskip("gguf")  # the checkpoints extra
    import gguf

    from paramcount.checkpoints.gguf_io import gguf_arch
    from paramcount.checkpoints.gguf_names import TABLES
    from tests._checkpoints import write_gguf

    arch_id, garch, preset = _GGUF[case]
    arch = registry.get(arch_id)
    if preset is None:
        _, tensors, cfg, hp = _buildable(arch)
    else:
        hp = arch.resolve(arch.preset(preset).hparams)
        tensors, cfg = state(arch, hp)
    names = gguf.get_tensor_name_map(gguf_arch(garch), hp["L"])
    named = [g for n, _, s in tensors
             for g in _gguf_name(names, n, s, cfg, not case.endswith("_kv_b"))]
    assert any(".attn_kv_b." in n for n, _, _ in named) == case.endswith("_kv_b")
    assert all(n for n, _, _ in named), [t[0] for t in tensors]
    table = TABLES[garch]
    if table.config is None:  # the config beside the file
        (tmp_path / "config.json").write_text(json.dumps(cfg))
        kv = {"block_count": hp["L"]}
    else:  # the metadata llama.cpp writes, from the config's keys
        cfg = {"num_experts": cfg.get("num_local_experts"), **cfg}  # Qwen MoE's published key
        kv = {g: cfg[h] for g, h in table.config.items()
              if isinstance(cfg.get(h), int) and not isinstance(cfg.get(h), bool)}
    path = write_gguf(tmp_path / "m.gguf", garch, kv, named)
    # llama.cpp converts Mistral as "llama", OLMo 3 as "olmo2": the file reads as the family
    # its metadata name (the same weights)
    named_id = [] if arch_id in ("mistral", "olmo3") else [arch_id]
    assert main(["verify", *named_id, "--checkpoint", str(path)]) == 0, capsys.readouterr().out
