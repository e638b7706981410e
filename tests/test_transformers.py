"""transformers as the second reference: formula (with its declared deltas) against the PyTorch
model built on the meta device, parameter by parameter name. Skipped without torch.

This process may hold TensorFlow (pytest-xdist runs files of both kinds in one worker), so it
never imports torch: verify and prove send their builds to a torch worker themselves, and a test
that handles torch objects runs its body there (``torch_side``, ``on_torch``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from paramcount.analyze.prove import transformers as hf_prove
from paramcount.analyze.verify import transformers_missing, transformers_weights, verify
from paramcount.cli.main import main
from paramcount.core.errors import Refused
from paramcount.model import frameworks, registry
from tests._shared import on_torch, torch_side

if transformers_missing():
    pytest.skip("the transformers extra is not installed", allow_module_level=True)

CONFIGS = Path(__file__).with_name("configs")
BIG = 20_000_000_000  # larger presets are built in the slow run only (about 1 s each)


def with_reference() -> list[str]:
    return sorted(a for a, arch in registry.architectures().items()
                  if arch.transformers is not None)


def sets(big: bool):
    """Every set of every architecture with a transformers reference, small or big; of the
    small ones the default run builds the first of each architecture (the rest: --runslow)."""
    out = []
    for arch_id in with_reference():
        arch = registry.get(arch_id)
        first = True
        for hs in arch.hparam_sets():
            if (arch.count(hs.hparams) > BIG) == big:
                out.append(pytest.param(arch_id, hs.name, id=f"{arch_id}-{hs.name}",
                                        marks=() if big or first else (pytest.mark.slow,)))
                first = False
    return out


def _check(arch_id: str, name: str) -> None:
    try:
        r = verify(arch_id, preset=name, framework="transformers")
    except Refused as exc:
        # Only transformers refuses, with its own message (its validator's: an odd rotary width
        # above 4, which Keras builds), never for a declared constraint alone; or a set breaking a
        # declared limit (BLOOM's d_f = 4·d_e), which it would build as another model, or an
        # option the class cannot switch (Transformers.always).
        arch = registry.get(arch_id)
        hp = arch.resolve(arch.preset(name).hparams)
        broken = frameworks.broken_limit(arch, hp)
        why = arch.transformers.refusal(hp)
        assert "(declared constraint)" not in str(exc)
        assert ("validator '" in str(exc) or "must be divisible" in str(exc)
                or (broken and broken in str(exc)) or (why and why in str(exc))), str(exc)
        return
    assert r.ok, r.mismatches()
    assert r.framework == "transformers" and r.reference == r.formula


@pytest.mark.parametrize("arch_id, name", sets(big=False))
def test_formula_with_deltas_equals_transformers(arch_id, name):
    _check(arch_id, name)


@pytest.mark.slow
@pytest.mark.parametrize("arch_id, name", sets(big=True))
def test_formula_with_deltas_equals_transformers_large(arch_id, name):
    _check(arch_id, name)


def test_every_covered_family_is_checked():
    assert {"llama", "llama3", "mistral", "gpt2", "gpt2_causal_lm", "bert", "bert_masked_lm",
            "opt", "qwen", "qwen3", "gpt_neo_x", "bloom", "falcon", "falcon_parallel", "qwen_moe",
            "qwen3_moe", "qwen3_5", "qwen3_5_moe", "mixtral", "smollm3", "gpt_oss", "gemma",
            "gemma3", "phi3", "pali_gemma", "gemma3_vision", "t5gemma", "t5gemma2",
            "roberta", "roberta_masked_lm",
            "xlm_roberta", "xlm_roberta_masked_lm", "distil_bert", "distil_bert_masked_lm",
            "electra", "albert", "albert_masked_lm", "bart", "t5",
            "deberta_v3", "esm", "f_net", "xlnet", "bert_pretraining",
            "vit", "gemma3n", "gemma4", "gemma3_embedding", "whisper", "moonshine",
            } <= set(with_reference())


@pytest.mark.parametrize("name", sorted(p.name for p in CONFIGS.glob("*.json")))
def test_published_config_builds_what_count_says(capsys, name):
    """The class the file names, built by transformers from the file itself (not through the
    table), has the count `count --config` prints."""
    built = on_torch(_built_from_file, str(CONFIGS / name))
    assert main(["count", "--config", str(CONFIGS / name), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == built


def _built_from_file(path: str, cls_name: str | None = None) -> int:
    """(In a torch worker.) The trainable parameters of the class a config file names (or
    ``cls_name``), built by transformers from the file itself, not through the table."""
    import torch
    import transformers

    from reference_models import hf

    data = json.loads(Path(path).read_text())
    cls = getattr(transformers, cls_name or data["architectures"][0])
    cfg = transformers.AutoConfig.for_model(data["model_type"], **{
        k: v for k, v in data.items() if k not in ("architectures", "model_type")})
    with torch.device("meta"):
        model = cls(cfg)
    return sum(w.size for w in hf.torch_weights(model) if w.trainable)


@torch_side
def test_tied_parameters_count_once_and_buffers_apart():
    from reference_models import hf

    arch = registry.get("llama")
    ws = hf.weights(arch, arch.resolve(dict(v=50, d_e=16, M=4, M_kv=2, d_f=24, L=1, tied=1)))
    names = [w.path for w in ws]
    assert "lm_head/weight" not in names and "model/embed_tokens/weight" in names
    assert not any("inv_freq" in n for n in names)  # non-persistent: computed, not a weight


@torch_side
def test_legacy_tensor_constructors_build_on_the_meta_device_too():
    """XLNet's attention makes its weights with ``torch.FloatTensor(d_model, n_head, d_head)``,
    a legacy constructor that ignores ``torch.device("meta")`` and allocates on the CPU (prove's
    sizes asked for 1.3e14 bytes). The build keeps it on the meta device; isinstance against
    the legacy type still works afterwards."""
    import torch

    from reference_models import hf

    arch = registry.get("xlnet")
    model = hf.build(arch, arch.resolve(dict(v=10, d_e=24, M=3, d_f=8, L=1)))
    assert {p.device.type for p in model.parameters()} == {"meta"}
    assert torch.FloatTensor(2, 3).device.type == "cpu"  # restored outside the build
    assert isinstance(torch.zeros(1), torch.FloatTensor)
    # within a build a lazily imported modeling module evaluates annotations such as
    # ``torch.FloatTensor | None`` (Gemma 3's vision tower): the stand-in is a type
    with torch.device("meta"), hf.legacy_constructors_on_default_device():
        assert torch.FloatTensor(2, 3).device.type == "meta"
        assert torch.FloatTensor([1.0]).device.type == "cpu"  # data: the legacy constructor
        cpu = torch.zeros(1, device="cpu")  # FloatTensor is the CPU float type
        assert isinstance(cpu, torch.FloatTensor | None)
        assert not isinstance(cpu.long(), torch.FloatTensor)


@torch_side
def test_a_parameter_frozen_at_construction_is_non_trainable():
    """WhisperEncoder freezes its sinusoidal table (``embed_positions.requires_grad_(False)``):
    a parameter, counted apart like KerasHub's non-trainable weight, not as a trainable one."""
    from reference_models import hf

    arch = registry.get("whisper")
    ws = {w.path: w for w in hf.weights(arch, arch.resolve(arch.preset("tiny").hparams))}
    assert not ws["model/encoder/embed_positions/weight"].trainable
    assert ws["model/encoder/embed_positions/weight"].size == 12 * 32  # n_audio × d_e
    assert ws["model/decoder/embed_positions/weight"].trainable  # learned in both frameworks


@torch_side
def test_a_symbol_transformers_sets_by_its_own_key_is_settable_there():
    """Moonshine's feed-forward is x_f·d_e wide in KerasHub, intermediate_size wide in
    transformers, any width (Transformers.settable): transformers' view takes d_f (default
    x_f·d_e), and its build agrees at a width no x_f gives."""
    from paramcount.core import symbols
    from reference_models import hf

    arch = registry.get("moonshine")
    view = frameworks.for_framework(arch, "transformers")
    d_f = symbols.get("d_f")
    assert d_f in arch.fixed and d_f in view.optional and d_f not in view.fixed
    assert view.resolve(dict(v=13, d_e=16, M=2, L_enc=1))["d_f"] == 64  # x_f·d_e
    hp = view.resolve(dict(v=13, d_e=16, M=2, L_enc=1, L_dec=1, d_f=21))
    built = sum(w.size for w in hf.weights(arch, hp) if w.trainable)
    assert view.count(hp) == built


@torch_side
def test_tied_parameter_is_named_as_the_input_embedding():
    """XLMRobertaForMaskedLM builds its lm_head before the encoder, so named_parameters() names
    the tied matrix lm_head.decoder.weight; the reference names it as the embedding it is."""
    from reference_models import hf

    arch = registry.get("xlm_roberta_masked_lm")
    names = [w.path for w in hf.weights(arch, arch.resolve(arch.preset("tiny").hparams))]
    assert "roberta/embeddings/word_embeddings/weight" in names
    assert "lm_head/decoder/weight" not in names


@torch_side
def test_declared_hf_defaults_are_transformers_defaults():
    """Where a table says what transformers does with an absent key, transformers agrees."""
    import torch
    import transformers

    cases = {  # model type → config keys given; the field whose default is checked
        "llama": ({"hidden_size": 64, "num_attention_heads": 8}, "num_key_value_heads", 8),
        # MistralConfig's absent num_key_value_heads is a fixed 8, not the query heads (16 here)
        "mistral": ({"hidden_size": 64, "num_attention_heads": 16}, "num_key_value_heads", 8),
        "gpt2": ({"n_embd": 64, "n_head": 8, "n_layer": 1, "vocab_size": 10, "n_positions": 8},
                 "n_inner", 256),
        "qwen3": ({"hidden_size": 64, "num_attention_heads": 8}, "head_dim", 128),
        "falcon": ({"hidden_size": 64, "num_attention_heads": 8}, "ffn_hidden_size", 256),
        "qwen3_5_text": ({"hidden_size": 64, "num_attention_heads": 8}, "head_dim", 256),
        # Gemma3nTextConfig shares the last 15 blocks' keys and values unless told (E4B's)
        "gemma3n_text": ({"hidden_size": 64, "num_attention_heads": 8}, "num_kv_shared_layers",
                         15),
    }
    for model_type, (given, key, want) in cases.items():
        table = next(a.mapping for a in registry.architectures().values()
                     if a.mapping is not None and a.mapping.model_type == model_type)
        cfg = transformers.AutoConfig.for_model(model_type, **given)
        field = next(f for f in table.fields if f.hf == key)
        values = {f.symbol: getattr(cfg, f.hf) for f in table.fields
                  if f.hf in given}
        import sympy

        from paramcount.core import symbols
        default = sympy.sympify(field.hf_default).xreplace(
            {symbols.get(k): v for k, v in values.items()})
        assert default == want
        if model_type == "gpt2":  # GPT-2 keeps None and decides in the model
            with torch.device("meta"):
                m = transformers.GPT2Model(cfg)
            assert m.h[0].mlp.c_fc.weight.shape[-1] == want
        else:
            assert getattr(cfg, key) == want
    for model_type, key, want in [("llama", "tie_word_embeddings", False),
                                  ("gpt2", "tie_word_embeddings", True),
                                  ("bert", "type_vocab_size", 2),
                                  ("qwen2", "tie_word_embeddings", False),
                                  ("qwen3", "tie_word_embeddings", False),
                                  ("falcon", "tie_word_embeddings", True),
                                  ("bloom", "tie_word_embeddings", True)]:
        assert getattr(transformers.AutoConfig.for_model(model_type), key) == want


def test_bert_for_pre_training_is_the_masked_lm_with_pooler_and_nsp_head(capsys, tmp_path):
    """bert-base-uncased's values as BertForPreTraining: 110,106,428 = BertForMaskedLM's
    109,514,298 + the pooler (590,592) + the next-sentence head (768·2 + 2)."""
    data = json.loads((CONFIGS / "bert-base-uncased.json").read_text())
    data["architectures"] = ["BertForPreTraining"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    assert main(["count", "--config", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["arch"] == "bert_pretraining" and out["total"] == 110_106_428
    assert out["total"] == 109_514_298 + 590_592 + 768 * 2 + 2


def test_cli_verify_framework_all(capsys):
    # -j 1: the Keras build in this process (no pool of TensorFlow workers), transformers' in a
    # torch worker, as ever
    code = main(["verify", "opt", "--preset", "tiny", "--framework", "all", "-j", "1"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Keras" in out and "transformers" in out and "2 match, 0 mismatch" in out


def test_cli_verify_refused_set_is_skipped_not_failed(capsys):
    code = main(["verify", "llama", "--preset", "tiny_gqa_tied", "--framework", "transformers"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("skipped") and "0 match, 0 mismatch" in out


def test_a_set_transformers_would_build_otherwise_is_skipped(capsys):
    """BLOOM's MLP is 4·d_e wide in transformers whatever d_f says: such a set is skipped (not a
    mismatch), count refuses it for transformers, and prove samples inside the limit."""
    code = main(["verify", "bloom", "--preset", "tiny", "--framework", "transformers"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("skipped") and "d_f (64) must be == 4·d_e (128)" in out
    code = main(["count", "bloom", "--preset", "tiny", "--framework", "transformers"])
    assert code == 2 and "4·d_e" in capsys.readouterr().err
    assert main(["verify", "bloom", "--preset", "tiny_4x", "--framework", "transformers"]) == 0


def test_a_model_only_transformers_builds_is_checked_there(capsys):
    """Falcon-7B/40B: verify skips Keras with the reason, checks transformers; prove proves it
    against transformers without being asked."""
    code = main(["verify", "falcon_parallel", "--preset", "tiny_gqa_two_norms",
                 "--framework", "all"])
    out = capsys.readouterr().out
    assert code == 0 and "no Keras build: checked by transformers only" in out
    assert "1 match, 0 mismatch" in out
    with pytest.raises(Exception, match="built by transformers only"):
        verify("falcon_parallel", preset="tiny_mqa")


def test_a_wrong_delta_is_a_named_mismatch():
    arch = registry.get("opt")
    broken = frameworks.Transformers(weights=arch.transformers.weights)  # the delta left out
    import dataclasses

    from paramcount.analyze.verify import compare

    hp = arch.resolve(arch.preset("tiny").hparams)
    bad = dataclasses.replace(arch, transformers=broken)
    r = compare(frameworks.for_framework(bad, "transformers"), hp, transformers_weights(arch, hp),
                framework="transformers")
    assert not r.ok
    assert r.mismatches() == ["opt.embeddings.position: formula 512, transformers 576 (+64)"]


def test_missing_extra_is_one_line(tmp_path):
    """Without torch, --framework transformers says how to install the extra."""
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text(
        "import sys\n"
        "class _Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name in ('torch', 'transformers') or name.startswith('torch.'):\n"
        "            raise ImportError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, _Block())\n")
    import os

    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    out = subprocess.run([sys.executable, "-m", "paramcount", "verify", "gpt2", "--preset", "tiny",
                          "--framework", "transformers"], capture_output=True, text=True, env=env)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1
    assert "pip install 'paramcount[transformers]'" in out.stderr


# --- prove: formula + deltas ≡ transformers for every hyperparameter value ---------------------
FAST_PROOFS = {"opt", "bert_masked_lm", "gpt2_causal_lm"}  # each under a second; deltas included
# encoders whose attention transformers refuses when M does not divide d_e (a declared
# constraint, so prove samples inside): one case each, well under a second
FAST_PROOFS |= {"bart", "bert_pretraining", "distil_bert", "distil_bert_masked_lm", "roberta",
                "roberta_masked_lm", "xlm_roberta", "xlm_roberta_masked_lm", "xlnet"}


@pytest.mark.parametrize("arch_id", [
    pytest.param(a, marks=() if a in FAST_PROOFS else (pytest.mark.slow,))
    for a in with_reference()])
def test_prove_formula_with_deltas_equals_transformers(arch_id):
    from paramcount.output import proofs

    p = hf_prove.prove(registry.get(arch_id))
    assert p.status == "proven", proofs.proof_text(p)


def test_prove_within_narrows_the_proof_not_verify():
    """T5Gemma 2's prove_within (decoder heads as the encoder's) constrains prove's cases only:
    the transformers view verify uses keeps every set, and builds one outside the restriction."""
    arch = registry.get("t5gemma2")
    within = arch.transformers.prove_within
    assert within and hf_prove.proof_arch(arch).constraints[:len(within)] == within
    assert not set(within) & set(frameworks.for_framework(arch, "transformers").constraints)
    hp = arch.resolve(arch.preset("tiny_unbalanced_untied").hparams)
    # M_dec ≠ M and M_kv_dec ≠ M_kv (its even rotary widths, validate_rope's range, it meets)
    assert sum(bool(c.check(arch.values(hp))) for c in within) == 2
    r = verify("t5gemma2", preset="tiny_unbalanced_untied", framework="transformers")
    assert r.ok and r.framework == "transformers"


def test_prove_refutes_a_missing_delta_with_its_residual():
    import dataclasses

    from paramcount.analyze import prove
    from paramcount.output import proofs

    arch = registry.get("opt")
    bad = dataclasses.replace(arch, transformers=frameworks.Transformers(
        weights=arch.transformers.weights))
    p = prove.prove(hf_prove.proof_arch(bad))
    assert p.status == "refuted"
    assert "residual embeddings.position: +2·d_e" in proofs.proof_text(p)


def test_cli_prove_framework_transformers(capsys):
    assert main(["prove", "opt", "--framework", "transformers", "--quiet"]) == 0
    assert "opt: PROVEN" in capsys.readouterr().out


def test_count_framework_transformers_counts_an_odd_rotary_width_verify_says_who_refuses(capsys):
    # An odd rotary width is what a forward pass needs, not the count (Qwen 3 at d_k = 3 builds,
    # OLMo 2 at d_k = 7 from a config without head_dim): count gives it; verify shows that LlamaConfig's validate_rope
    # refuses d_k = 5 (tests/test_constraints_built.py), in transformers' own words.
    assert main(["count", "llama", "--preset", "tiny_gqa_tied", "--framework", "transformers"]) == 0
    assert "counted as transformers builds it: LlamaForCausalLM" in capsys.readouterr().out
    with pytest.raises(Refused, match="validate_rope"):
        verify("llama", preset="tiny_gqa_tied", framework="transformers")


def test_cli_verify_config_both_frameworks(capsys, tmp_path):
    cfg = {"model_type": "opt", "architectures": ["OPTForCausalLM"], "vocab_size": 97,
           "hidden_size": 24, "num_hidden_layers": 2, "ffn_dim": 40, "num_attention_heads": 4,
           "max_position_embeddings": 11, "word_embed_proj_dim": 24}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    code = main(["verify", "--config", str(path), "--framework", "all", "-j", "1"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.startswith(f"read {path} (transformers config, OPTForCausalLM) as opt: v=97")
    assert "2 match, 0 mismatch" in out


@pytest.mark.parametrize("model_type, cls", [
    ("llama", "LlamaForCausalLM"), ("mistral", "MistralForCausalLM"), ("gpt2", "GPT2LMHeadModel"),
    ("bert", "BertForMaskedLM"), ("opt", "OPTForCausalLM"), ("qwen2", "Qwen2ForCausalLM"),
    ("qwen3", "Qwen3ForCausalLM"), ("gpt_neox", "GPTNeoXForCausalLM"),
    ("bloom", "BloomForCausalLM"), ("falcon", "FalconForCausalLM"),
    ("qwen2_moe", "Qwen2MoeForCausalLM"), ("qwen3_moe", "Qwen3MoeForCausalLM"),
    ("qwen3_5_text", "Qwen3_5ForCausalLM"), ("qwen3_5_moe_text", "Qwen3_5MoeForCausalLM"),
    ("mixtral", "MixtralForCausalLM"),
    ("smollm3", "SmolLM3ForCausalLM"), ("gpt_oss", "GptOssForCausalLM"),
    ("gemma3_text", "Gemma3ForCausalLM"), ("gemma", "GemmaForCausalLM"),
    ("gemma2", "Gemma2ForCausalLM"),
    ("phi3", "Phi3ForCausalLM"), ("paligemma", "PaliGemmaForConditionalGeneration"),
    ("t5gemma", "T5GemmaForConditionalGeneration"),
    ("distilbert", "DistilBertForMaskedLM"), ("electra", "ElectraModel"),
    ("albert", "AlbertForMaskedLM"), ("bart", "BartForConditionalGeneration"),
    ("t5", "T5ForConditionalGeneration"), ("fnet", "FNetModel"),
    ("xlnet", "XLNetModel"), ("bert", "BertForPreTraining"), ("vit", "ViTModel"),
    ("gemma3n_text", "Gemma3nForCausalLM"),
    ("whisper", "WhisperForConditionalGeneration"),
    ("moonshine", "MoonshineForConditionalGeneration"),
])
# (not Gemma3Config: its default vision_config has SigLIP's MAP head, vision_use_head, which the
# published Gemma 3 configs switch off and the gemma3_vision table refuses)
@torch_side
def test_config_saved_by_transformers_reads_every_key(tmp_path, model_type, cls):
    """A config.json as this transformers writes it: every key is read, required or declared
    free; and the count is what transformers builds from it."""
    import torch
    import transformers

    from paramcount.analyze.configs import read_config
    from reference_models import hf

    cfg = transformers.AutoConfig.for_model(model_type)
    cfg.architectures = [cls]
    cfg.save_pretrained(tmp_path)
    reading = read_config(tmp_path)
    assert reading.ignored == ()
    with torch.device("meta"):
        model = getattr(transformers, cls)(cfg)
    built = sum(w.size for w in hf.torch_weights(model) if w.trainable)
    arch = registry.get(reading.arch)
    hp = arch.resolve(reading.hparams)
    assert frameworks.for_framework(arch, "transformers", hp).count(hp) == built


def test_an_always_option_is_skipped_where_a_settable_symbol_is_given(capsys):
    """Moonshine's d_f is settable in transformers, so a set that gives it resolves in
    transformers' view, where glu_enc is pinned to 0: the gated-encoder set is a skipped row
    with the class's reason, and the other sets are still checked (it stopped the run)."""
    code = main(["verify", "moonshine", "--framework", "transformers", "-j", "1"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "MoonshineEncoderMLP never gates" in out
    assert "0 mismatch" in out and " 0 match" not in out


def test_option_the_class_cannot_switch_is_skipped_and_fixed(capsys):
    """Gemma3ForCausalLM always has QK norms and post norms (Transformers.always): a set without
    them is skipped by verify, refused by count, and held fixed by prove's cases."""
    code = main(["verify", "gemma3", "--preset", "no_qk_no_post", "--framework", "transformers"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("skipped")
    assert "qk_norm = 0: Gemma3ForCausalLM always normalizes queries and keys" in out
    code = main(["count", "gemma3", "--preset", "no_qk_no_post", "--framework", "transformers"])
    assert code == 2 and "qk_norm" in capsys.readouterr().err
    hf_arch = frameworks.for_framework(registry.get("gemma3"), "transformers")
    assert {s.name for s in hf_arch.fixed} >= {"qk_norm", "post_norm"}
    assert not {s.name for s in hf_arch.settable} & {"qk_norm", "post_norm"}
def test_every_leaf_of_every_transformers_tree_has_a_kind():
    """The deltas keep the kinds: a replacement without one takes the replaced term's."""
    from paramcount.model.frameworks import for_framework

    missing = [lf.path for a in registry.architectures().values() if a.transformers is not None
               for t in a.transformers.all()
               for lf in for_framework(a, "transformers", ref=t).formula.leaves()
               if lf.kind is None]
    assert not missing
    hf = for_framework(registry.get("bert_masked_lm"), "transformers")
    assert {lf.path: lf.kind for lf in hf.formula.leaves()}["bert_masked_lm.pooler"] == "head"


def test_cli_verify_framework_all_names_an_architecture_without_transformers(capsys):
    """--framework all verifies each named architecture on every framework it has: Keras only
    where there is no transformers reference yet (not an error, as with --framework
    transformers)."""
    assert registry.get("mixed_rnn_lm").transformers is None
    code = main(["verify", "opt", "mixed_rnn_lm", "--framework", "all", "--quiet", "-j", "1"])
    out = capsys.readouterr().out
    assert code == 0, out
    rows = [line.split() for line in out.splitlines() if line.startswith("match")]
    assert {r[1] for r in rows} == {"opt", "mixed_rnn_lm"}
    assert any("transformers" in line for line in out.splitlines() if " opt " in line)
    assert not any("transformers" in line for line in out.splitlines() if "mixed_rnn_lm" in line)
    assert main(["verify", "mixed_rnn_lm", "--framework", "transformers"]) == 2
    assert "mixed_rnn_lm has no transformers reference yet" in capsys.readouterr().err


def test_transformers_verification_imports_no_tensorflow_and_no_warning_reaches_the_user():
    """``verify --framework transformers`` needs torch alone: importing TensorFlow, Keras and
    KerasHub first cost it about 7 s a process (GPT-3 175B verified in 8.3 s, of which 0.2 s
    is transformers' build). And a tiny preset's vocabulary is smaller than GPT-2's token ids:
    transformers warns about each ("Model config: bos_token_id must be None or ..."), which is
    noise to a user of `verify`/`report` (issue 22 §3): stderr stays empty under --quiet. One
    fresh process checks both (the command, then the API)."""
    root = Path(__file__).resolve().parents[1]
    code = ("import sys\n"
            "from paramcount.cli.main import main\n"
            "code = main(['verify', 'gpt2', '--preset', 'tiny', '--framework', 'transformers',\n"
            "             '--quiet', '-j', '1'])\n"
            "assert code == 0, code\n"
            "from paramcount.analyze.verify import verify\n"
            "r = verify('gpt2', preset='gpt2_base_en', framework='transformers')\n"
            "assert r.ok, r.mismatches()\n"
            "print(sorted(m for m in ('tensorflow', 'keras', 'keras_hub') if m in sys.modules))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(root)})
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]", proc.stdout


@pytest.mark.parametrize("arch_id, name, cls, norms", [
    ("gemma", "tiny", "GemmaForCausalLM", 2), ("gemma", "tiny_gemma2", "Gemma2ForCausalLM", 4),
    ("pali_gemma", "tiny", "PaliGemmaForConditionalGeneration", 2),
    ("pali_gemma", "tiny_gemma2", "PaliGemmaForConditionalGeneration", 4)])
@torch_side
def test_post_norm_sets_are_built_by_gemma2(arch_id, name, cls, norms):
    """One architecture, two transformers classes (Transformers.variants): Gemma 2's decoder for
    the post-norm sets, with its own norm names attributed to the same leaves."""
    from reference_models import hf

    arch = registry.get(arch_id)
    hp = arch.resolve(arch.preset(name).hparams)
    model = hf.build(arch, hp)
    assert type(model).__name__ == cls
    layer = next(m for n, m in model.named_modules() if "Decoder" in type(m).__name__)
    assert type(layer).__name__.startswith("Gemma2" if norms == 4 else "Gemma")
    assert sum("layernorm" in n for n, _ in layer.named_parameters()) == norms
    r = verify(arch_id, preset=name, framework="transformers")
    assert r.ok, r.mismatches()
    claimed = {c.path: c.weights for c in r.components}
    post, pre = claimed[f"{arch_id}.blocks.post_attention_norm"], claimed[f"{arch_id}.blocks.norm_2"]
    assert len(pre) == hp["L"] and len(post) == (hp["L"] if norms == 4 else 0)
    assert all("post_attention_layernorm" in w for w in post)
    assert all(("pre_feedforward" if norms == 4 else "post_attention") in w for w in pre)


def test_qwen_moe_config_with_dense_blocks_counts_what_transformers_builds(capsys, tmp_path):
    """decoder_sparse_step and mlp_only_layers (Qwen2MoeDecoderLayer's rule per block index)
    are read into L_moe: the count is that of transformers' own build of the file."""
    data = json.loads((CONFIGS / "qwen1.5-moe-a2.7b.json").read_text())
    data.update(num_hidden_layers=6, decoder_sparse_step=2, mlp_only_layers=[1, 4])
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    built = on_torch(_built_from_file, str(path), "Qwen2MoeForCausalLM")
    assert main(["count", "--config", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # sparse where (i + 1) % 2 == 0 and i not in [1, 4]: blocks 3 and 5
    assert out["config"]["read"]["L_moe"] == 2 and out["total"] == built
    assert main(["verify", "qwen_moe", "--config", str(path), "--framework", "transformers",
                 "--quiet"]) == 0


def _llama_trainable(kwargs: dict) -> int:
    """LlamaForCausalLM's trainable parameters at ``kwargs``, built on the meta device (in a
    torch worker: see ``on_torch``)."""
    import torch
    import transformers

    from reference_models import hf

    with torch.device("meta"):
        model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**kwargs))
    return sum(w.size for w in hf.torch_weights(model) if w.trainable)


def test_llama_head_dim_apart_from_hidden_over_heads_is_read(capsys, tmp_path):
    """A Llama config whose head_dim is not hidden_size / num_attention_heads (issue 22 §3):
    transformers builds it (as Mistral's table already reads the key), so it is counted as
    transformers builds it, checked here against the class built from the file itself."""
    data = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 1000,
            "hidden_size": 256, "intermediate_size": 688, "num_attention_heads": 8,
            "num_key_value_heads": 2, "num_hidden_layers": 3, "head_dim": 64,
            "tie_word_embeddings": False}
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(data))
    built = on_torch(_llama_trainable, {k: v for k, v in data.items()
                                        if k not in ("architectures", "model_type")})
    assert main(["count", "--config", str(cfg), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["total"] == built and out["hparams"]["d_k"] == 64
    assert main(["verify", "--config", str(cfg), "--framework", "transformers", "--quiet"]) == 0
    assert "1 match, 0 mismatch" in capsys.readouterr().out
    # the same head width as hidden/heads stays the Keras model's: read as before
    data["head_dim"] = 32
    cfg.write_text(json.dumps(data))
    assert main(["count", "--config", str(cfg), "--framework", "keras", "--json"]) == 0
    assert "d_k" not in json.loads(capsys.readouterr().out)["config"]["read"]


@pytest.mark.parametrize("arch_id", [
    "gpt2:GPT2ForQuestionAnswering",
    # a num_labels-wide head: about 30× slower to prove (transformers writes an id2label entry
    # per label, and the prover draws d_y up to 2^24), so a sweep
    pytest.param("opt:OPTForSequenceClassification", marks=pytest.mark.slow)])
def test_cli_prove_a_class_of_a_family(capsys, arch_id):
    """``prove <id>:<Class>`` proves the class's formula (the family's tree, its own head) against
    its transformers build, with or without --framework, and the tally names transformers'
    builds (it said Keras' without the flag)."""
    for extra in ([], ["--framework", "transformers"]):
        assert main(["prove", arch_id, "--quiet", *extra]) == 0
        out = capsys.readouterr().out
        assert f"{arch_id}: PROVEN" in out
        assert "transformers builds, " in out.splitlines()[-1]
        assert "Keras" not in out.splitlines()[-1]
