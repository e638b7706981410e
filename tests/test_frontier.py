"""The frontier families, hand-written (issue 20): DeepSeek-V2/V3 (latent attention, shared
experts, multi-token prediction), Llama 4, Mamba. Their published configs read as what
transformers builds, the model cards' figures come out of the formulas as named terms, and the
formula + deltas equal transformers' build (slow: proven for all hyperparameters)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paramcount.cli.main import main
from paramcount.core import symbols
from paramcount.model import registry
from paramcount.model.frameworks import for_framework

CONFIGS = Path(__file__).with_name("configs")

# file → (architecture read, transformers' count of the class the file names). The files are the
# published config.json values (hand-written from the released checkpoints' configs; auto_map and
# quantization_config left out: they change no count).
PUBLISHED = {
    # deepseek-ai/DeepSeek-V3 config.json: 671B on the model card ("671B of the Main Model
    # weights"); the card's 685B adds the MTP module transformers does not build (below)
    "deepseek-v3.json": ("deepseek_v3", 671_026_404_352),
    # moonshotai/Kimi-K2-Instruct config.json (DeepseekV3ForCausalLM, no MTP module): "1 trillion
    # total parameters"
    "kimi-k2-instruct.json": ("deepseek_v3", 1_026_408_209_408),
    # deepseek-ai/DeepSeek-V2-Lite config.json (q_lora_rank null: a plain query projection):
    # "15.7B" in the DeepSeek-V2 paper, appendix B
    "deepseek-v2-lite.json": ("deepseek_v2", 15_706_484_224),
    # deepseek-ai/DeepSeek-V3.2-Exp config.json: V3's values with the indexer's (64 heads of 128)
    "deepseek-v3.2-exp.json": ("deepseek_v32", 671_877_929_216),
    # meta-llama/Llama-4-Scout-17B-16E and Llama-4-Maverick-17B-128E config.json's text_config
    # (read as Llama4ForCausalLM, model_type llama4_text): the text models of the "109B" and
    # "400B" checkpoints (paramcount/families/llama4/llama4_text.toml: the vision tower is the rest)
    "llama-4-scout-17b-16e-text.json": ("llama4_text", 107_769_861_120),
    "llama-4-maverick-17b-128e-text.json": ("llama4_text", 400_711_848_960),
    # state-spaces/mamba-130m-hf and mamba-2.8b-hf config.json (tied head): 129M and 2.77B
    "mamba-130m-hf.json": ("mamba", 129_135_360),
    "mamba-2.8b-hf.json": ("mamba", 2_768_345_600),
    # mistralai/Mamba-Codestral-7B-v0.1 config.json (time_step_limit [0, Infinity] left out: not
    # JSON, and it changes no count): "7,285,403,648 parameters" on the model card
    "mamba-codestral-7b-v0.1.json": ("mamba2", 7_285_403_648),
    # Qwen/Qwen3-Next-80B-A3B-Instruct config.json: "80B in total" on the model card (its
    # multi-token-prediction layer, which Qwen3NextForCausalLM does not build, not counted)
    "qwen3-next-80b-a3b-instruct.json": ("qwen3_next", 79_674_391_296),
    # zai-org/GLM-4.5 and GLM-4.5-Air config.json: 355B and 106B on the model cards (GLM-4.5's
    # card figure includes the MTP layer its checkpoint stores, not built by transformers)
    "glm-4.5.json": ("glm4_moe", 352_797_814_784),
    "glm-4.5-air.json": ("glm4_moe", 106_852_245_504),
    # allenai/OLMo-2-1124-7B config.json ("7B", 7.3B) and allenai/OLMoE-1B-7B-0924 ("6.9B total,
    # 1.3B active", OLMoE paper table 1)
    "olmo-2-1124-7b.json": ("olmo2", 7_298_617_344),
    "olmoe-1b-7b-0924.json": ("olmoe", 6_919_161_856),
    # ibm-granite/granite-3.0-2b-base config.json (tied; 2.53B) and CohereForAI/c4ai-command-r-v01
    # config.json (tied by CohereConfig's default; "35B")
    "granite-3.0-2b-base.json": ("granite", 2_533_531_648),
    "c4ai-command-r-v01.json": ("cohere", 34_980_831_232),
    # microsoft/phi-2 and microsoft/phi-1_5 config.json (2.7B and 1.3B on the cards: 2.78B and
    # 1.42B with the 51200-row table and the head's bias); EleutherAI/gpt-j-6b config.json
    "phi-2.json": ("phi", 2_779_683_840),
    "phi-1_5.json": ("phi", 1_418_270_720),
    "gpt-j-6b.json": ("gpt_j", 6_050_882_784),
    # microsoft/Phi-3.5-MoE-instruct config.json (its rope_scaling's long/short factor lists left
    # out): "42B total, 6.6B active" (41.9B, 6.64B)
    "phi-3.5-moe-instruct.json": ("phimoe", 41_873_153_344),
    # second configs (keys that change no count, and values not certain, left out):
    # zai-org/GLM-4.6 config.json (GLM-4.5's, max_position_embeddings 202752; "355B" on the
    # card: see its preset's card.why); allenai/OLMo-2-1124-13B ("13B", 13.7B);
    # allenai/OLMoE-1B-7B-0125 (OLMoE-1B-7B-0924's shapes); ibm-granite/granite-3.0-8b-base
    # (tied; 8.17B); nomic-ai/gpt4all-j (a GPT-J-6B fine-tune: its shapes); AntonV/mamba2-130m-hf
    # (the Mamba-2 130M checkpoint converted for Mamba2ForCausalLM, tied: 129M)
    "glm-4.6.json": ("glm4_moe", 352_797_814_784),
    "olmo-2-1124-13b.json": ("olmo2", 13_716_198_400),
    "olmoe-1b-7b-0125.json": ("olmoe", 6_919_161_856),
    "granite-3.0-8b-base.json": ("granite", 8_170_848_256),
    "gpt4all-j.json": ("gpt_j", 6_050_882_784),
    "mamba2-130m-hf.json": ("mamba2", 128_989_632),
}


def _count(capsys, *args) -> dict:
    assert main(["count", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_config_counts_as_transformers_builds_it(capsys, name):
    arch, total = PUBLISHED[name]
    data = _count(capsys, "--config", str(CONFIGS / name))
    assert data["arch"] == arch and data["total"] == total
    assert data["framework"] == "transformers"


def _values(arch_id: str, preset: str, framework: str = "keras"):
    arch = registry.get(arch_id)
    hp = arch.resolve(arch.preset(preset).hparams)
    built = for_framework(arch, framework, hp)
    return built, built.values(hp)


def test_deepseek_v3_card_figures_are_named_terms():
    """671B is what the config builds; 685B on the card adds the MTP module its checkpoint
    stores (684.5B: the card's 671B + 14B, each rounded); about 37B are active per token."""
    arch, values = _values("deepseek_v3", "deepseek_v3")
    whole = int(arch.formula.trainable_total(True).subs(values))
    mtp = int(arch.formula.find("mtp").trainable_total(True).subs(values))
    assert whole == 684_489_830_400 and mtp == 13_463_426_048
    hf, hf_values = _values("deepseek_v3", "deepseek_v3", "transformers")
    assert int(hf.formula.trainable_total(True).subs(hf_values)) == whole - mtp == 671_026_404_352
    # active: k = 8 of the 256 routed experts in each sparse block, everything else once; 37.6B
    # with the token table, 36.6B without it (DeepSeek's "37B activated")
    active = int(hf.formula.active_total().subs(hf_values))
    token = int(hf.formula.find("embeddings.token").total().subs(hf_values))
    assert active == 37_552_282_624 and active - token == 36_625_603_584
    # the router's score-correction bias: one per routed expert per sparse block, non-trainable
    assert int(hf.formula.trainable_total(False).subs(hf_values)) == 256 * 58


def test_deepseek_v2_lite_active_count_excludes_the_token_table():
    """DeepSeek-V2-Lite's "2.4B activated" is the active count without the input embedding."""
    arch, values = _values("deepseek_v2", "deepseek_v2_lite", "transformers")
    active = int(arch.formula.active_total().subs(values))
    token = int(arch.formula.find("embeddings.token").total().subs(values))
    assert active == 2_661_150_208 and active - token == 2_451_435_008


def test_plain_query_when_q_lora_rank_is_null(capsys):
    """q_lora_rank null builds one q_proj; set, q_a_proj + norm + q_b_proj: the presence of the
    key is the flag q_lora, its value r_q."""
    data = _count(capsys, "--config", str(CONFIGS / "deepseek-v2-lite.json"))
    assert data["config"]["read"]["q_lora"] == 0 and "r_q" not in data["config"]["read"]
    data = _count(capsys, "--config", str(CONFIGS / "deepseek-v3.json"))
    assert data["config"]["read"]["q_lora"] == 1 and data["config"]["read"]["r_q"] == 1536


@pytest.mark.parametrize(("preset", "moe", "total"), [
    ("llama4_scout_17b_16e", 48, 107_769_861_120),
    ("llama4_maverick_17b_128e", 24, 400_711_848_960),
])
def test_llama4_totals_and_17b_active(preset, moe, total):
    """Scout: every block sparse (16 experts); Maverick: every second (128 experts). Both
    activate 17.2B per token: one routed expert beside the shared one. The published 109B adds
    the vision tower (871,932,416: 108.64B)."""
    arch, values = _values("llama4_text", preset, "transformers")
    assert values[symbols.get("L_moe")] == moe
    assert int(arch.formula.trainable_total(True).subs(values)) == total
    active = int(arch.formula.active_total().subs(values))
    assert 17_000_000_000 < active < 17_500_000_000


def test_llama4_moe_layers_read_from_the_step_or_the_list(capsys, tmp_path):
    data = json.loads((CONFIGS / "llama-4-maverick-17b-128e-text.json").read_text())
    data["moe_layers"] = [0, 5, 7]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    assert _count(capsys, "--config", str(path))["config"]["read"]["L_moe"] == 3


def test_mamba_time_step_rank_auto_is_the_ceiling_of_d_e_over_16(capsys, tmp_path):
    data = json.loads((CONFIGS / "mamba-130m-hf.json").read_text())
    data |= {"time_step_rank": "auto", "hidden_size": 760}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    assert _count(capsys, "--config", str(path))["config"]["read"]["r_dt"] == 48
    assert registry.get("mamba").resolve(dict(v=10, d_e=760, L=1))["r_dt"] == 48


def test_mamba2_head_dim_must_be_expand_times_d_e_over_heads(capsys, tmp_path):
    data = json.loads((CONFIGS / "mamba-codestral-7b-v0.1.json").read_text())
    data["head_dim"] = 32
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    assert main(["count", "--config", str(path)]) == 2
    assert "head_dim = 32" in capsys.readouterr().err


def test_qwen3_next_shares_qwen3_5_moe_formula():
    """The same tree as Qwen 3.5 MoE (its components), so the same count at the same values;
    3.87B active with the token table and head, 3.25B without either ("3B activated")."""
    hp = registry.get("qwen3_next").preset("qwen3_next_80b_a3b").hparams
    nxt, moe = registry.get("qwen3_next"), registry.get("qwen3_5_moe")
    assert nxt.count(nxt.resolve(hp)) == moe.count(moe.resolve(hp)) == 79_674_391_296
    arch, values = _values("qwen3_next", "qwen3_next_80b_a3b", "transformers")
    active = int(arch.formula.active_total().subs(values))
    table = int(arch.formula.find("embeddings.token").total().subs(values))
    assert active == 3_874_929_408 and active - 2 * table == 3_252_599_552


@pytest.mark.parametrize(("preset", "activated"), [("glm_4_5", 32_080_359_424),
                                                   ("glm_4_5_air", 12_182_609_920)])
def test_glm_activated_figures_leave_out_the_token_table_and_head(preset, activated):
    """GLM-4.5's "32B activated" and GLM-4.5-Air's "12B": the active count less the token
    table and the LM head."""
    arch, values = _values("glm4_moe", preset, "transformers")
    active = int(arch.formula.active_total().subs(values))
    table = int(arch.formula.find("embeddings.token").total().subs(values))
    assert active - 2 * table == activated


@pytest.mark.parametrize(("preset", "changes", "stored", "tables", "card"), [
    ("glm_4_5", {}, 358_337_776_896, 4, 355_233_991_936),
    ("glm_4_6", {"mtp_tab": 0}, 356_785_884_416, 2, 355_233_991_936),
    ("glm_4_5_air", {}, 110_468_818_944, 4, 107_985_790_976),
])
def test_glm_card_totals_count_the_mtp_layer_without_word_embeddings_or_output(
        preset, changes, stored, tables, card):
    """GLM-4.5's report counts "the parameters of MTP layers but not word embeddings and the
    output layer": the stored count (n_mtp = 1, the MTP layer with or without its own table
    and head, mtp_tab: GLM-4.6's checkpoint stores none) less every v × d_e table. 355.2B for
    GLM-4.5 and GLM-4.6; 108.0B for GLM-4.5-Air, whose card says 106B (its preset's card.why)."""
    arch = registry.get("glm4_moe")
    hp = arch.resolve({**arch.preset(preset).hparams, **changes})
    assert arch.count(hp) == stored
    vocab = [t for t in arch.formula.leaves() if t.kind in ("embedding", "head")]
    values = {symbols.get(k): x for k, x in hp.items()}
    assert sum(int(t.expr.subs(values)) for t in vocab) == tables * hp["v"] * hp["d_e"]
    assert stored - tables * hp["v"] * hp["d_e"] == card


def test_glm_mtp_layer_is_read_and_is_a_named_delta(capsys):
    """num_nextn_predict_layers is n_mtp; transformers does not build the layer (a delta)."""
    data = _count(capsys, "--config", str(CONFIGS / "glm-4.5.json"))
    assert data["config"]["read"]["n_mtp"] == 1
    assert data["total"] == 352_797_814_784 == 358_337_776_896 - 5_539_962_112


def test_deepseek_v32_indexer_and_card_figure():
    """V3.2's lightning indexer adds 851.5M to V3's 671.0B; with the stored MTP module (its own
    indexer included) 685.4B, the V3.2-Exp card's "685B"."""
    arch, values = _values("deepseek_v32", "deepseek_v3_2_exp")
    indexer = int(arch.formula.find("blocks.attention.indexer").total().subs(values)) * 61
    assert indexer == 671_877_929_216 - 671_026_404_352 == 851_524_864
    assert int(arch.formula.trainable_total(True).subs(values)) == 685_355_314_688


FRONTIER = ["deepseek_v2", "deepseek_v3", "deepseek_v32", "llama4_text", "mamba", "mamba2", "qwen3_next",
            "glm4_moe", "olmo2", "olmoe", "granite", "cohere", "phi", "gpt_j",
            "phimoe"]


@pytest.mark.parametrize("arch_id", FRONTIER)
def test_checked_by_transformers_only(arch_id):
    assert registry.get(arch_id).checked_by == ("transformers",)


@pytest.mark.slow
@pytest.mark.parametrize("arch_id", FRONTIER)
def test_formula_with_deltas_is_proven_against_transformers(arch_id):
    from paramcount.analyze.prove import transformers as hf_prove

    result = hf_prove.prove(registry.get(arch_id))
    assert result.status == "proven", result
