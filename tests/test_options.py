"""Options transformers builds and KerasHub cannot (paramcount.model.options): counted as transformers
builds them, the Keras check skipped with the family's reason, never refused. Skipped without
torch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paramcount.analyze.verify import transformers_missing

if transformers_missing():  # this process may hold TensorFlow: torch is never imported here
    pytest.skip("the transformers extra is not installed", allow_module_level=True)


from paramcount.cli.main import main
from paramcount.model import options, registry

CONFIGS = Path(__file__).with_name("configs")

# file → (architecture read, transformers' build of the file). Published configs with the one
# key changed, as transformers' model testers set them; tests/test_transformers.py builds each
# file directly and checks the same count.
OPTION_CONFIGS = {
    # tie_word_embeddings false: a separate lm_head, d_e × v more than the published count
    "gemma-2-2b-untied.json": ("gemma:untied", 2_614_341_888 + 2304 * 256_000),
    "gemma-3-1b-untied.json": ("gemma3:untied", 999_885_952 + 1152 * 262_144),
    "smollm3-3b-untied.json": ("smollm3:untied", 3_075_098_624 + 2048 * 128_256),
    "gpt2-untied.json": ("gpt2_causal_lm:untied", 124_439_808 + 768 * 50_257),
    "opt-125m-untied.json": ("opt:untied", 125_239_296 + 768 * 50_272),
    "falcon-7b-untied.json": ("falcon_parallel:untied", 6_921_720_704 + 4544 * 65_024),
    # GPT2Model has no head for the key to untie: read as it is, by the Keras-checked id
    "gpt2-model-untied.json": ("gpt2", 124_439_808),
    # sixteen token-type rows in place of one (15 × 768 more)
    "roberta-base-16-types.json": ("roberta_masked_lm:token_types", 124_697_433 + 15 * 768),
    # eight relative-position buckets in place of 32, in the encoder's and decoder's tables
    "t5-small-8-buckets.json": ("t5:buckets", 60_506_624 - 2 * 24 * 8),
    # Gemma 4 31B's text config without hidden_size_per_layer_input: transformers then builds
    # per-layer inputs 256 wide (E2B/E4B's): a 262144 × 60·256 table, the d_e → 60·256
    # projection and its norm, and each block's gate, projection and norm
    "gemma-4-31b-text-per-layer.json": (
        "gemma4:per_layer_inputs",
        30_697_345_280 + 262_144 * 60 * 256 + 5376 * 60 * 256 + 256 + 60 * (2 * 5376 * 256 + 5376)),
}


def _sets():
    out = []
    for arch_id in options.every():
        for name in options.options_of(arch_id):
            derived = f"{arch_id}:{name}"
            # the first set of each in the default run, the rest a sweep (--runslow)
            for i, hs in enumerate(registry.get(derived).hparam_sets()):
                out.append(pytest.param(derived, hs.name, id=f"{derived}-{hs.name}",
                                        marks=() if i == 0 else (pytest.mark.slow,)))
    return out


@pytest.mark.parametrize("arch_id, name", _sets())
def test_every_option_matches_its_transformers_build(arch_id, name):
    from tests.test_transformers import _check

    _check(arch_id, name)


def _combined_sets():
    out = []
    for arch_id in options.every():
        for name in options.combined(arch_id):
            derived = f"{arch_id}:{name}"
            for i, hs in enumerate(registry.get(derived).hparam_sets()):
                out.append(pytest.param(derived, hs.name, id=f"{derived}-{hs.name}",
                                        marks=() if i == 0 else (pytest.mark.slow,)))
    return out


@pytest.mark.parametrize("arch_id, name", _combined_sets())
def test_every_class_with_each_option_matches_its_transformers_build(arch_id, name):
    """A family's further classes (paramcount.model.heads) compose with its options: RoBERTa's
    classifier with sixteen token types, T5Model with eight buckets (the first set of each in
    the default run)."""
    from tests.test_transformers import _check

    _check(arch_id, name)


def test_every_family_with_classes_and_options_composes_them():
    assert "RobertaForSequenceClassification:token_types" in options.combined("roberta")
    assert "T5Model:buckets" in options.combined("t5")
    # an untied LM head concerns no class without one: those read any tie_word_embeddings
    assert not any(c.endswith(":untied") for a in options.every() for c in options.combined(a))


# a published class config with one option key changed → (id read, transformers' build)
COMBINED_CONFIGS = [
    # RoBERTa-base for SST-2 with sixteen token-type rows (15 × 768 more)
    ("roberta-base-sst2.json", {"type_vocab_size": 16},
     "roberta:RobertaForSequenceClassification:token_types", 124_647_170 + 15 * 768),
    # T5Model of t5-small with eight buckets in each stack's table (2 × 24 × 8 fewer)
    ("t5-small-model.json", {"relative_attention_num_buckets": 8},
     "t5:T5Model:buckets", 60_506_624 - 2 * 24 * 8),
]


@pytest.mark.parametrize("name, change, arch, total", COMBINED_CONFIGS)
def test_a_class_config_with_an_option_counts_as_transformers_builds_it(capsys, tmp_path, name,
                                                                         change, arch, total):
    data = json.loads((CONFIGS / name).read_text())
    (tmp_path / "config.json").write_text(json.dumps({**data, **change}))
    assert main(["count", "--config", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["arch"], out["total"], out["config"]["ignored"]) == (arch, total, [])


@pytest.mark.parametrize("name", sorted(OPTION_CONFIGS))
def test_option_config_counts_as_transformers_builds_it(capsys, name):
    arch, total = OPTION_CONFIGS[name]
    assert main(["count", "--config", str(CONFIGS / name), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["arch"], out["total"], out["config"]["ignored"]) == (arch, total, [])


def test_the_keras_check_is_skipped_with_the_familys_reason(capsys):
    code = main(["verify", "--config", str(CONFIGS / "smollm3-3b-untied.json"), "--framework",
                 "all", "-j", "1", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "skipped  smollm3:untied" in out
    assert "KerasHub's SmolLM3 always ties its LM head" in out
    assert "match    smollm3:untied" in out
    assert main(["count", "--config", str(CONFIGS / "gemma-2-2b-untied.json")]) == 0
    out = capsys.readouterr().out
    assert "checked by transformers only: the Keras check is skipped for this " \
           "tie_word_embeddings: Gemma 2's head is the token embedding (tied)" in out
    assert "head" in out and "+589,824,000" in out


def test_a_config_the_family_reads_is_not_taken_by_an_option():
    """The family's own table comes first: a tied Gemma 2 still reads (and is checked by
    Keras) as gemma."""
    from paramcount.analyze.configs import read_config

    assert read_config(CONFIGS / "gemma-2-2b.json").arch == "gemma"
    assert read_config(CONFIGS / "t5-small.json").arch == "t5"
    assert registry.get("gemma").checked_by == ("keras", "transformers")
    assert registry.get("gemma:untied").checked_by == ("transformers",)
