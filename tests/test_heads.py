"""Every transformers class of a covered family (paramcount.heads): the base model and the task
heads beside the declared class, each read from a config and checked against its transformers
build on the meta device. Skipped without torch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from paramcount import heads, registry  # noqa: E402
from paramcount.cli import main  # noqa: E402
from paramcount.verify import verify  # noqa: E402
from reference_models import hf  # noqa: E402

CONFIGS = Path(__file__).with_name("configs")
KINDS = {heads.BASE: "MODEL_MAPPING_NAMES",
         heads.SEQUENCE: "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES",
         heads.TOKEN: "MODEL_FOR_TOKEN_CLASSIFICATION_MAPPING_NAMES",
         heads.QA: "MODEL_FOR_QUESTION_ANSWERING_MAPPING_NAMES"}

# file → (architecture read, transformers' build of the file, its class named in the file)
CLASS_CONFIGS = {
    # intfloat/e5-mistral-7b-instruct: MistralModel, Mistral-7B-v0.1's values (7.11B)
    "e5-mistral-7b-instruct.json": ("mistral:MistralModel", 7_110_660_096),
    # Meta-Llama-3-8B's values as LlamaModel: 8,030,261,248 less the untied 128256 × 4096 head
    "llama-3-8b-model.json": ("llama:LlamaModel", 7_504_924_672),
    # a reward model over Meta-Llama-3-8B: LlamaForSequenceClassification, id2label of one
    # label (num_labels = 1: a score), the base model plus a 4096 × 1 score
    "llama-3-8b-reward.json": ("llama:LlamaForSequenceClassification", 7_504_928_768),
    # Qwen3-0.6B's values as Qwen3Model (the base of Qwen3-Embedding-0.6B): tied, so the
    # causal LM's count
    "qwen3-0.6b-model.json": ("qwen3:Qwen3Model", 596_049_920),
    # a token classifier over Qwen2.5-0.5B with CoNLL-2003's nine BIO tags (score with a bias:
    # 896 · 9 + 9 more than the base model)
    "qwen2.5-0.5b-token-classification.json": ("qwen:Qwen2ForTokenClassification", 494_040_841),
    # Phi-3-mini-4k-instruct's values as Phi3Model: 3,821,079,552 less the 32064 × 3072 head
    "phi-3-mini-model.json": ("phi3:Phi3Model", 3_722_578_944),
}


def derived() -> list[str]:
    return [f"{a}:{c}" for a in sorted(heads.FAMILIES) for c in heads.classes_of(a)]


@pytest.mark.parametrize("arch_id", sorted(heads.FAMILIES))
def test_declared_classes_are_every_class_transformers_registers(arch_id):
    """The classes a family row names are exactly those transformers' auto mappings register
    for the family's model type, each under the kind it is registered as."""
    from transformers.models.auto import modeling_auto

    model_type = registry.get(arch_id).mapping.model_type
    registered = {getattr(modeling_auto, m).get(model_type): kind for kind, m in KINDS.items()}
    registered.pop(None, None)
    assert dict(heads.FAMILIES[arch_id].names) == registered


def _sets():
    out = []
    for arch_id in derived():
        for hs in registry.get(arch_id).hparam_sets():
            out.append(pytest.param(arch_id, hs.name, id=f"{arch_id}-{hs.name}"))
    return out


@pytest.mark.parametrize("arch_id, name", _sets())
def test_every_class_matches_its_transformers_build(arch_id, name):
    """Each class of each family, at each example set of its family, weight by weight (the base
    model's weights named as the declared class names them, the head on its own term)."""
    arch = registry.get(arch_id)
    try:
        r = verify(arch_id, preset=name, framework="transformers")
    except hf.Refused as exc:  # transformers' own validation (an odd rotary width)
        assert "(declared constraint)" in str(exc) or arch.transformers.refusal(
            arch.resolve(arch.preset(name).hparams)) in str(exc)
        return
    assert r.ok, r.mismatches()
    assert r.framework == "transformers" and not r.unclaimed


def test_a_class_is_transformers_only_and_its_head_a_named_term():
    arch = registry.get("llama:LlamaForSequenceClassification")
    assert arch.checked_by == ("transformers",)
    from paramcount.frameworks import for_framework

    view = for_framework(arch, "transformers")
    names = [c.name for c in view.formula.children]
    assert names[-1] == "score" and "head" not in names
    assert view.formula.find("score").kind == "head"
    hp = view.resolve(dict(v=10, d_e=8, M=2, M_kv=1, d_f=12, L=1, d_y=5))
    base = registry.get("llama:LlamaModel")
    assert view.count(hp) - for_framework(base, "transformers").count(hp) == 8 * 5


def test_labels_come_from_id2label_or_num_labels(capsys, tmp_path):
    data = json.loads((CONFIGS / "llama-3-8b-reward.json").read_text())
    base = 7_504_924_672
    for changes, labels in [({}, 1), ({"id2label": None, "label2id": None}, 2),  # default
                            ({"num_labels": 7}, 7),  # num_labels wins, as in transformers
                            ({"id2label": {str(i): f"L{i}" for i in range(4)}}, 4)]:
        cfg = {k: v for k, v in {**data, **changes}.items() if v is not None}
        (tmp_path / "config.json").write_text(json.dumps(cfg))
        assert main(["count", "--config", str(tmp_path), "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["hparams"]["d_y"] == labels and out["total"] == base + 4096 * labels


@pytest.mark.parametrize("name", sorted(CLASS_CONFIGS))
def test_class_config_counts_as_transformers_builds_it(capsys, name):
    arch, total = CLASS_CONFIGS[name]
    assert main(["count", "--config", str(CONFIGS / name), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["arch"], out["total"], out["framework"]) == (arch, total, "transformers")
    assert out["config"]["ignored"] == []


def test_verify_a_class_config_skips_keras_with_the_reason(capsys):
    code = main(["verify", "--config", str(CONFIGS / "qwen3-0.6b-model.json"), "--framework",
                 "all", "-j", "1", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "skipped  qwen3:Qwen3Model" in out and "no Keras build" in out
    assert "match    qwen3:Qwen3Model" in out


def test_naming_the_family_reads_a_class_config_as_its_class(capsys):
    assert main(["count", "llama", "--config", str(CONFIGS / "llama-3-8b-model.json"),
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["arch"] == "llama:LlamaModel"


def test_an_unknown_class_of_a_family_is_refused_with_the_known_ones(capsys):
    assert main(["count", "llama:LlamaForPretraining", "--set", "v=1"]) == 2
    assert "did you mean 'llama:" in capsys.readouterr().err
