"""Checkpoints written as transformers' save_pretrained writes them (headers from a meta-device
build, the data a sparse hole), checked by ``verify --checkpoint`` tensor by tensor. The
builds run in torch workers (this process may hold TensorFlow); skipped without torch."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from paramcount.analyze.verify import transformers_missing

if transformers_missing():  # this process may hold TensorFlow: torch runs in torch workers
    pytest.skip("the transformers extra is not installed", allow_module_level=True)

from paramcount.analyze import configs
from paramcount.analyze.checkpoints import check, readers
from paramcount.analyze.checkpoints.published import PUBLISHED
from paramcount.cli.main import main
from paramcount.model import registry
from tests._checkpoints import write_safetensors, write_sharded
from tests._hf_checkpoints import buildable as _buildable
from tests._hf_checkpoints import save, state

CONFIGS = Path(__file__).with_name("configs")


def _with_reference() -> list[str]:
    return sorted(a for a, arch in registry.architectures().items()
                  if arch.transformers is not None)


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
        # the 14,848 router score-correction biases are buffers: apart from the trainable
        assert (data["built_trainable"], data["built_nontrainable"]) == (671_026_404_352, 14_848)
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


def test_buffers_the_config_model_holds_are_shown_apart_from_its_trainable_parameters(
        tmp_path, capsys):
    """DeepSeek-V3's router score-correction biases are buffers (non-trainable): the count
    shows the config model's trainable parameters and those apart, as the report does, in text
    and in JSON; a model without any shows its one figure, as before."""
    arch = registry.get("deepseek_v3")
    hp = arch.resolve(arch.preset("tiny").hparams)
    save(tmp_path, arch, hp)
    trainable, buffers = arch.count(hp), arch.count_nontrainable(hp)
    assert buffers > 0
    assert main(["count", "--checkpoint", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("the config model "))
    assert lines[at].split()[-1] == f"{trainable + buffers:,}"
    assert lines[at + 1].split()[:1] + lines[at + 1].split()[-1:] == ["trainable", f"{trainable:,}"]
    assert lines[at + 2].split()[:2] == ["non-trainable", f"{buffers:,}:"]
    assert lines[at + 2].endswith(": buffers (not trained by gradient); "
                                  "deepseek_v3.blocks.moe.router.score_bias")
    assert lines[at + 3].startswith("stored − built ")
    assert main(["count", "--checkpoint", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["built"], data["built_trainable"], data["built_nontrainable"]) == (
        trainable + buffers, trainable, buffers)
    llama = registry.get("llama")
    save(tmp_path / "llama", llama, llama.resolve(llama.preset("tiny_mha").hparams))
    assert main(["count", "--checkpoint", str(tmp_path / "llama")]) == 0
    out = capsys.readouterr().out
    assert "trainable" not in out


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
