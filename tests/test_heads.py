"""Every transformers class of a covered family (paramcount.model.heads): the base model and the task
heads beside the declared class, each read from a config and checked against its transformers
build on the meta device. Skipped without torch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paramcount.analyze.verify import transformers_missing

if transformers_missing():  # this process may hold TensorFlow: torch is never imported here
    pytest.skip("the transformers extra is not installed", allow_module_level=True)


from paramcount.analyze import configs
from paramcount.cli.main import main
from paramcount.model import heads, registry

CONFIGS = Path(__file__).with_name("configs")
MAPPINGS = ("MODEL_MAPPING_NAMES", "MODEL_FOR_CAUSAL_LM_MAPPING_NAMES",
            "MODEL_FOR_MASKED_LM_MAPPING_NAMES", "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES",
            "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES",
            "MODEL_FOR_TOKEN_CLASSIFICATION_MAPPING_NAMES",
            "MODEL_FOR_QUESTION_ANSWERING_MAPPING_NAMES")

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
    # the published classes of facebook/esm2_t6_8M_UR50D and xlnet/xlnet-base-cased (both heads
    # tied to the token table: the MLM transform and bias; XLNet's lm_loss bias, v = 32000)
    "esm2_t6_8M_UR50D-mlm.json": ("esm:EsmForMaskedLM", 7_512_474),
    "xlnet-base-cased-lm.json": ("xlnet:XLNetLMHeadModel", 116_750_336),
    # base models of published values: T5Model of t5-small (tied: the LM's count), BloomModel
    # of bloom-560m, FalconModel of falcon-7b (parallel attention), GPTNeoXModel of pythia-70m
    # (70,426,624 less its untied 50304 × 512 embed_out)
    "t5-small-model.json": ("t5:T5Model", 60_506_624),
    "bloom-560m-model.json": ("bloom:BloomModel", 559_214_592),
    "falcon-7b-model.json": ("falcon_parallel:FalconModel", 6_921_720_704),
    "pythia-70m-model.json": ("gpt_neo_x:GPTNeoXModel", 44_670_976),
    # fine-tuning heads over published bases: RoBERTa-base for SST-2 (two labels, no pooler,
    # the two-layer classifier), BERT-base for SQuAD (span logits, no pooler), DistilBERT for
    # SST-2 (pre-classifier), GPT-2 tagging five labels, DeBERTa-v3-base for MNLI (its own pooler)
    "roberta-base-sst2.json": ("roberta:RobertaForSequenceClassification", 124_647_170),
    "bert-base-uncased-squad.json": ("bert:BertForQuestionAnswering", 108_893_186),
    "distilbert-base-uncased-sst2.json": ("distil_bert:DistilBertForSequenceClassification",
                                         66_955_010),
    "gpt2-token-classification.json": ("gpt2:GPT2ForTokenClassification", 124_443_653),
    "deberta-v3-base-mnli.json": ("deberta_v3:DebertaV2ForSequenceClassification", 184_424_451),
    # classes of a transformers variant and of a hybrid stack: a one-label reward model over
    # Gemma 2 2B (Gemma2ForSequenceClassification: the tied LM's count plus a 2304 × 1 score);
    # Qwen3.5-27B's text model without its untied 248320 × 5120 head
    "gemma-2-2b-reward.json": ("gemma:Gemma2ForSequenceClassification", 2_614_344_192),
    "qwen3.5-27b-text-model.json": ("qwen3_5:Qwen3_5TextModel", 25_624_600_064),
}


def derived() -> list[str]:
    return [f"{a}:{c}" for a in heads.families() for c in heads.classes_of(a)]


@pytest.mark.parametrize("arch_id", sorted(heads.families()))
def test_every_class_transformers_registers_is_read_or_refused_with_its_reason(arch_id):
    """For a family with a row, each class transformers' auto mappings register for its model
    type (base model, LM, classification, QA) is read (by the family's table or as a class of
    the row) or refused with a stated reason; and the row names no class transformers lacks."""
    from tests._shared import on_torch

    model_types = {r.variant: (registry.get(arch_id).transformers.all()[r.variant].mapping
                               or registry.get(arch_id).mapping).model_type
                   for r in heads.rows(arch_id)}
    for row in heads.rows(arch_id):
        model_type = model_types[row.variant]
        registered = on_torch(_registered, model_type)
        tables = {c for t in configs.tables() if t.model_type == model_type
                  for c in t.hf_classes}
        assert set(row.names) <= registered and set(row.refused) <= registered
        assert registered <= tables | set(row.names) | set(row.refused)


def _registered(model_type: str) -> set[str]:
    """The classes transformers' auto mappings register for ``model_type`` (in a torch worker)."""
    from transformers.models.auto import modeling_auto

    return {getattr(modeling_auto, m).get(model_type) for m in MAPPINGS} - {None}


def _sets():
    """Every class at every example set of its family: the first set of each in the default
    run, the rest a sweep (--runslow), as tests/test_transformers.py does for the families."""
    out = []
    for arch_id in derived():
        for i, hs in enumerate(registry.get(arch_id).hparam_sets()):
            out.append(pytest.param(arch_id, hs.name, id=f"{arch_id}-{hs.name}",
                                    marks=() if i == 0 else (pytest.mark.slow,)))
    return out


@pytest.mark.parametrize("arch_id, name", _sets())
def test_every_class_matches_its_transformers_build(arch_id, name):
    """Each class of each family, at each example set of its family (the first in the default
    run), weight by weight (the base model's weights named as the declared class names them,
    the head on its own term); a set transformers refuses only for the family's own declared
    reasons."""
    from tests.test_transformers import _check

    _check(arch_id, name)


def test_a_class_is_transformers_only_and_its_head_a_named_term():
    arch = registry.get("llama:LlamaForSequenceClassification")
    assert arch.checked_by == ("transformers",)
    from paramcount.model.frameworks import for_framework

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


def test_a_class_not_read_is_refused_with_its_reason(capsys, tmp_path):
    data = json.loads((CONFIGS / "t5-small.json").read_text())
    data["architectures"] = ["T5ForTokenClassification"]
    (tmp_path / "config.json").write_text(json.dumps(data))
    assert main(["count", "--config", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "class 'T5ForTokenClassification' (architectures[0]) cannot be counted: it builds " \
        "T5's encoder alone" in err


def test_an_unknown_class_of_a_family_is_refused_with_the_known_ones(capsys):
    assert main(["count", "llama:LlamaForPretraining", "--set", "v=1"]) == 2
    assert "did you mean 'llama:" in capsys.readouterr().err


@pytest.mark.parametrize("name, cls", [
    ("gemma-2-2b.json", "Gemma2Model"), ("gemma-2-2b.json", "Gemma2ForSequenceClassification"),
    # the families whose untied LM head is an option (paramcount.model.options): their other classes
    ("gpt2.json", "GPT2ForSequenceClassification"), ("opt-125m.json", "OPTForQuestionAnswering"),
    ("smollm3-3b.json", "SmolLM3Model"), ("falcon-7b.json", "FalconForTokenClassification")])
def test_a_class_without_an_lm_head_reads_any_tie_word_embeddings(capsys, tmp_path, name, cls):
    """Gemma 2's table refuses an untied head (KerasHub's is tied); its base model and its
    classifiers have no LM head, so the key changes nothing there."""
    data = json.loads((CONFIGS / name).read_text())
    counts = []
    for tie in (True, False):
        (tmp_path / "config.json").write_text(json.dumps(
            {**data, "architectures": [cls], "tie_word_embeddings": tie}))
        assert main(["count", "--config", str(tmp_path), "--json"]) == 0
        counts.append(json.loads(capsys.readouterr().out)["total"])
    assert counts[0] == counts[1]
