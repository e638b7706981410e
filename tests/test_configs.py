"""Configuration files in (paramcount.configs, paramcount.mapping): published transformers
configs, KerasHub preset configs, the tables read both ways, and every refusal."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from paramcount import registry
from paramcount.cli import main

CONFIGS = Path(__file__).with_name("configs")

# file → (architecture read, transformers' parameter count of that class). The counts are the
# published figures of the checkpoints (model cards / sum of safetensors shapes), and what the
# transformers reference gives (tests/test_transformers.py checks the same configs by building).
PUBLISHED = {
    "llama-2-7b-hf.json": ("llama", 6_738_415_616),
    "meta-llama-3-8b.json": ("llama", 8_030_261_248),
    "llama-3.2-1b.json": ("llama", 1_235_814_400),
    "mistral-7b-v0.1.json": ("mistral", 7_241_732_096),
    "gpt2.json": ("gpt2_causal_lm", 124_439_808),
    "gpt2-medium.json": ("gpt2_causal_lm", 354_823_168),
    "bert-base-uncased.json": ("bert_masked_lm", 109_514_298),
    "opt-125m.json": ("opt", 125_239_296),
    "llama-2-13b-hf.json": ("llama", 13_015_864_320),
    "llama-2-70b-hf.json": ("llama", 68_976_648_192),
    "mistral-7b-v0.3.json": ("mistral", 7_248_023_552),
    "gpt2-large.json": ("gpt2_causal_lm", 774_030_080),
    "gpt2-xl.json": ("gpt2_causal_lm", 1_557_611_200),
    "bert-large-uncased.json": ("bert_masked_lm", 335_174_458),
    "opt-1.3b.json": ("opt", 1_315_758_080),
    # FacebookAI/roberta-base, roberta-large (config.json as published; counts: the checkpoints'
    # RobertaForMaskedLM, n + 2 position rows and the one-row token-type table included)
    "roberta-base.json": ("roberta_masked_lm", 124_697_433),
    "roberta-large.json": ("roberta_masked_lm", 355_412_057),
    "xlm-roberta-base.json": ("xlm_roberta_masked_lm", 278_295_186),  # FacebookAI/xlm-roberta-base
    "distilbert-base-uncased.json": ("distil_bert_masked_lm", 66_985_530),  # distilbert/...
    # google/electra-{base,small}-discriminator's values, the class set to ElectraModel: the
    # published ElectraForPreTraining has a discriminator head KerasHub does not build
    "electra-base-discriminator.json": ("electra", 108_891_648),
    "electra-small-discriminator.json": ("electra", 13_483_008),
    "albert-base-v2.json": ("albert_masked_lm", 11_221_680),  # albert/albert-base-v2
    "bart-base.json": ("bart", 139_420_416),  # facebook/bart-base
    "bart-large-cnn.json": ("bart", 406_290_432),  # facebook/bart-large-cnn (lm_head tied)
    # google-t5/t5-small (v1.0, tied); google/flan-t5-small (untied: the checkpoint has
    # 76,961,152, KerasHub's count; transformers 5 forces the head tied and builds 60,511,616)
    "t5-small.json": ("t5", 60_506_624),
    "flan-t5-small.json": ("t5", 60_511_616),
    # microsoft/deberta-v3-base (its config.json names no class: DebertaV2Model added here)
    "deberta-v3-base.json": ("deberta_v3", 183_831_552),
    # facebook/esm2_t6_8M_UR50D's values, the class set to EsmModel (pooler and contact head;
    # the published EsmForMaskedLM's LM head is not in paramcount's ESM)
    "esm2_t6_8M_UR50D.json": ("esm", 7_511_801),
    # google/fnet-base's values, the class set to FNetModel (the published FNetForPreTraining
    # adds MLM and NSP heads KerasHub's backbone does not have) and use_tpu_fourier_optimizations
    # false (published: true, which makes transformers keep DFT matrices as buffers: refused)
    "fnet-base.json": ("f_net", 82_861_056),
    # xlnet/xlnet-base-cased's values, the class set to XLNetModel (the published
    # XLNetLMHeadModel adds an LM head bias)
    "xlnet-base-cased.json": ("xlnet", 116_718_336),
}


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def mapped() -> list[str]:
    return sorted(a for a, arch in registry.architectures().items() if arch.mapping is not None)


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_config_counts_as_transformers_builds_it(capsys, name):
    arch, total = PUBLISHED[name]
    code, out, err = run(capsys, "count", "--config", str(CONFIGS / name), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["arch"] == arch and data["total"] == total
    assert data["framework"] == "transformers" and data["config"]["file"].endswith(name)


def test_count_config_prints_what_it_read(capsys):
    code, out, _ = run(capsys, "count", "--config", str(CONFIGS / "bert-base-uncased.json"))
    assert code == 0
    first = out.splitlines()[0]
    assert "(transformers config, BertForMaskedLM) as bert_masked_lm: v=30522, L=12" in first
    assert "counted as transformers builds it: BertForMaskedLM" in out
    assert "pooler" in out and "-590,592  (590,592 → 0): BertForMaskedLM has no pooler" in out
    # The Keras build of the same config keeps KerasHub's pooler.
    code, out, _ = run(capsys, "count", "--config", str(CONFIGS / "bert-base-uncased.json"),
                       "--framework", "keras", "--json")
    assert json.loads(out)["total"] == 109_514_298 + 590_592


def test_folder_and_set_override(capsys, tmp_path):
    (tmp_path / "config.json").write_text((CONFIGS / "llama-2-7b-hf.json").read_text())
    code, out, _ = run(capsys, "count", "--config", str(tmp_path), "--set", "L=40", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["hparams"]["L"] == 40 and data["config"]["read"]["L"] == 32
    assert data["preset"] == f"{tmp_path}+custom"


def test_arch_named_with_config_reads_with_its_table(capsys):
    # Llama 3 configs say model_type "llama"; naming llama3 reads them as llama3 (same formula).
    code, out, _ = run(capsys, "count", "llama3", "--config", str(CONFIGS / "meta-llama-3-8b.json"),
                       "--json")
    assert code == 0 and json.loads(out)["arch"] == "llama3"
    assert json.loads(out)["total"] == 8_030_261_248
    code, _, err = run(capsys, "count", "gpt2", "--config", str(CONFIGS / "meta-llama-3-8b.json"))
    assert code == 2 and "cannot be read as gpt2" in err


def _write(tmp_path, data, name="config.json") -> str:
    p = tmp_path / name
    p.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(p)


def _llama(**changes):
    data = json.loads((CONFIGS / "llama-2-7b-hf.json").read_text())
    for k, v in changes.items():
        if v is None:
            data.pop(k, None)
        else:
            data[k] = v
    return data


@pytest.mark.parametrize("data, message", [
    (_llama(model_type="mamba9"), "model_type 'mamba9' is not supported; supported: "),
    (_llama(architectures=["LlamaForSequenceClassification"]),
     "class 'LlamaForSequenceClassification' (architectures[0]) is not supported for "
     "model_type 'llama'; supported: LlamaForCausalLM"),
    (_llama(attention_bias=True), "attention_bias = true cannot be counted"),
    (_llama(mlp_bias=True), "mlp_bias = true cannot be counted"),
    (_llama(head_dim=96), "head_dim = 96 cannot be counted: the formula fixes d_k = d_e/M = 128"),
    (_llama(vocab_size=None), "missing key vocab_size (v), which llama needs"),
    (_llama(hidden_size="4096"), 'hidden_size = "4096": expected a positive integer'),
    (_llama(tie_word_embeddings=1), "tie_word_embeddings = 1: expected true or false"),
    (_llama(model_type=None), "no model_type key"),
    ({"model_type": "opt", "architectures": ["OPTForCausalLM"], "vocab_size": 50272,
      "hidden_size": 1024, "word_embed_proj_dim": 512, "num_hidden_layers": 24, "ffn_dim": 4096,
      "num_attention_heads": 16, "max_position_embeddings": 2048},
     "word_embed_proj_dim = 512 differs from hidden_size = 1024"),
    ({"model_type": "opt", "architectures": ["OPTForCausalLM"], "do_layer_norm_before": False},
     "do_layer_norm_before = false cannot be counted: post-LN OPT (OPT-350m)"),
    ({"model_type": "bert", "architectures": ["BertModel"],
      "position_embedding_type": "relative_key"}, "position_embedding_type = \"relative_key\""),
    ({"model_type": "roberta", "architectures": ["RobertaModel"], "max_position_embeddings": 2},
     "max_position_embeddings = 2: expected an integer above 2 (max_position_embeddings = n + 2)"),
    ({"model_type": "roberta", "architectures": ["RobertaModel"], "type_vocab_size": 2},
     "type_vocab_size = 2 cannot be counted: the formula has no token types"),
    ({"model_type": "t5", "architectures": ["T5ForConditionalGeneration"],
      "feed_forward_proj": "gated-mish"},
     'feed_forward_proj = "gated-mish" cannot be counted: expected one of "gated-gelu"'),
    ({"class_name": "FooBackbone", "config": {}}, "KerasHub class 'FooBackbone' is not supported"),
    ("{not json", "malformed JSON"),
    ("[1, 2]", "expected a JSON object, got list"),
])
def test_bad_config_is_one_line_naming_file_and_key(capsys, tmp_path, data, message):
    path = _write(tmp_path, data)
    code, out, err = run(capsys, "count", "--config", path)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and (path in err or "config" in err), err


def test_unknown_model_type_lists_supported(capsys, tmp_path):
    code, _, err = run(capsys, "count", "--config", _write(tmp_path, _llama(model_type="x")))
    assert code == 2
    for mt in ("bert", "gpt2", "llama", "mistral", "opt"):
        assert mt in err


def test_config_option_conflicts(capsys, tmp_path):
    path = str(CONFIGS / "gpt2.json")
    code, _, err = run(capsys, "count", "--config", path, "--preset", "gpt2_base_en")
    assert code == 2 and "--config and --preset are alternatives" in err
    code, _, err = run(capsys, "count", "--config", str(tmp_path / "none.json"))
    assert code == 2 and "cannot read config" in err
    code, _, err = run(capsys, "count")
    assert code == 2 and "required: arch (or --config PATH)" in err


def test_unknown_keys_are_shown_not_dropped(capsys, tmp_path):
    path = _write(tmp_path, _llama(new_fancy_option=3))
    code, out, _ = run(capsys, "count", "--config", path)
    assert code == 0 and "keys not read" in out and "new_fancy_option" in out


@pytest.mark.parametrize("arch_id", mapped())
def test_tables_read_back_what_they_write(arch_id):
    """Forward then backward, both frameworks: every preset and example comes back."""
    arch = registry.get(arch_id)
    table = arch.mapping
    for hs in arch.hparam_sets():
        hp = hs.hparams
        refused = arch.transformers is not None and any(
            c.check(arch.values(hp)) for c in arch.transformers.constraints)
        if table.hf_class(arch_id) is not None and not refused:
            back, ignored = table.from_hf(table.hf_config(hp), where="x", fixed=arch.fixed)
            assert arch.resolve(back) == hp, hs.name
            assert not ignored
        back, ignored = table.from_keras(table.keras_kwargs(hp), where="x", fixed=arch.fixed)
        assert arch.resolve(back) == hp, (hs.name, back)
        assert not ignored


def test_count_config_imports_no_framework(tmp_path):
    code = ("import sys; from paramcount.cli import main; "
            f"rc = main(['count', '--config', {str(CONFIGS / 'gpt2.json')!r}]); "
            "bad = [m for m in ('torch', 'transformers', 'tensorflow', 'keras') "
            "if m in sys.modules]; print('LOADED', bad); sys.exit(rc)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "LOADED []" in out.stdout


# --- KerasHub: its converters and its own serialized configs ---------------------------------
CONVERTERS = {  # architecture id → (KerasHub converter module, a published config here)
    "llama3": ("convert_llama3", "meta-llama-3-8b.json"),
    "mistral": ("convert_mistral", "mistral-7b-v0.1.json"),
    "gpt2": ("convert_gpt2", "gpt2.json"),
    "bert": ("convert_bert", "bert-base-uncased.json"),
    "roberta": ("convert_roberta", "roberta-base.json"),
    "xlm_roberta": ("convert_xlm_roberta", "xlm-roberta-base.json"),
    "distil_bert": ("convert_distilbert", "distilbert-base-uncased.json"),
    "albert": ("convert_albert", "albert-base-v2.json"),
    "bart": ("convert_bart", "bart-base.json"),
    "esm": ("convert_esm", "esm2_t6_8M_UR50D.json"),
}


@pytest.mark.parametrize("arch_id", sorted(CONVERTERS))
def test_reading_agrees_with_keras_hub_converter(arch_id):
    """paramcount's reading of a transformers config gives the constructor arguments KerasHub's
    own converter (``convert_backbone_config``) gives, for every argument both name."""
    import importlib

    module, name = CONVERTERS[arch_id]
    conv = importlib.import_module(f"keras_hub.src.utils.transformers.{module}")
    data = json.loads((CONFIGS / name).read_text())
    data.setdefault("rope_theta", 10000.0)
    theirs = conv.convert_backbone_config(data)
    from paramcount.configs import read_config

    arch = registry.get(arch_id)
    reading = read_config(CONFIGS / name, arch_id)
    ours = arch.mapping.keras_kwargs(arch.resolve(reading.hparams))
    shared = sorted(k for k in set(ours) & set(theirs) if theirs[k] is not None)
    assert len(shared) >= 5
    assert {k: ours[k] for k in shared} == {k: theirs[k] for k in shared}
    # and the converter's arguments (None: KerasHub's default) read as the same hyperparameters
    back, _ = arch.mapping.from_keras(theirs, where=module, fixed=arch.fixed)
    assert arch.resolve(back) == arch.resolve(reading.hparams)


ROUND_TRIP = ["llama", "llama3", "mistral", "gpt2", "bert", "opt", "roberta", "xlm_roberta",
              "distil_bert", "electra", "albert", "bart", "t5",
              "deberta_v3", "esm", "f_net", "xlnet",
              # KerasHub configuration only (transformers has no such model)
              "roformer_v2", "rwkv7", "edrec"]


@pytest.mark.parametrize("arch_id", ROUND_TRIP)
def test_keras_hub_serialized_config_round_trip(capsys, tmp_path, arch_id):
    """The backbone's own serialized config (what a KerasHub preset's config.json holds), read
    back with --config, counts what KerasHub rebuilds from that file."""
    import keras

    from paramcount.verify import build_reference, keras_weights
    from reference_models._build import stateless

    arch = registry.get(arch_id)
    hs = next(h for h in arch.hparam_sets() if not h.preset.official)
    model = build_reference(arch, hs.hparams)
    blob = keras.saving.serialize_keras_object(model)
    path = _write(tmp_path, json.dumps(blob))
    with stateless():
        rebuilt = keras.saving.deserialize_keras_object(json.loads(Path(path).read_text()))
    rebuilt_count = sum(w.size for w in keras_weights(rebuilt) if w.trainable)
    code, out, err = run(capsys, "count", "--config", path, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["arch"] == arch_id and data["config"]["source"] == "KerasHub config"
    assert data["total"] == rebuilt_count == arch.count(hs.hparams)
    assert data["config"]["ignored"] == []
