"""The families transformers alone checks, hand-written (issue 20): the frontier (DeepSeek-V2/V3,
Llama 4, Mamba, ...), the state-space hybrids (§4: Jamba, Nemotron-H, Granite 4, Falcon-H1, Zamba 2)
and the rest of the frontier (§5: MiniMax-M2, OLMo 3, Granite 3 MoE, ...). What holds for all of
them is tested here, over one table: each published config reads as what transformers builds, each
is checked by transformers only, and the formula + deltas equal transformers' build (slow: proven
for all hyperparameters). What a family's own cards and configs say is tested beside the family
(paramcount/families/<f>/<f>_test.py)."""

from __future__ import annotations

import pytest

from paramcount.model import registry
from tests._shared import CONFIGS, count_json

# file → (architecture read, transformers' count of the class the file names). The files are the
# published config.json values (hand-written from the released checkpoints' configs; auto_map and
# quantization_config left out: they change no count).
PUBLISHED = {
    # --- the frontier (issue 20) ---
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
    # --- the state-space hybrids (issue 20 §4) ---
    # ai21labs/Jamba-v0.1 and AI21-Jamba-1.5-Mini config.json: "52B total, 12B active" on the
    # cards (51.6B, 12.1B)
    "jamba-v0.1.json": ("jamba", 51_570_323_328),
    "ai21-jamba-1.5-mini.json": ("jamba", 51_570_323_328),
    # nvidia/Nemotron-H-8B-Base-8K config.json (its hybrid_override_pattern: 24 M, 4 *, 24 -)
    # and nvidia/NVIDIA-Nemotron-Nano-9B-v2 config.json: "8.89B" on the card
    "nemotron-h-8b-base-8k.json": ("nemotron_h", 8_100_852_736),
    "nvidia-nemotron-nano-9b-v2.json": ("nemotron_h", 8_888_227_328),
    # ibm-granite/granite-4.0-h-small config.json values ("32B total"; its layer_types hold 36
    # mamba and 4 attention: placed here at blocks 5, 15, 25, 35 as in the other 40-block
    # Granite 4 hybrids, which blocks changing no count) and granite-4.0-micro ("3B": all 40
    # blocks attention, no experts)
    "granite-4.0-h-small.json": ("granitemoehybrid", 32_207_337_984),
    "granite-4.0-micro.json": ("granitemoehybrid", 3_402_836_480),
    # tiiuae/Falcon-H1-0.5B-Base config.json (0.52B; its mamba_d_ssm, 1536, is mamba_n_heads ·
    # mamba_d_head, as FalconH1Config checks) and tiiuae/Falcon-H1-7B-Base's values (7.59B;
    # the keys not quoted left at FalconH1Config's defaults)
    "falcon-h1-0.5b-base.json": ("falcon_h1", 521_411_104),
    "falcon-h1-7b-base.json": ("falcon_h1", 7_585_513_568),
    # Zyphra/Zamba2-2.7B-Instruct-v2 config.json ("2.7B") and Zyphra/Zamba2-1.2B's ("1.2B"),
    # the latter in transformers' spelling (its lora_rank, state_size, use_shared_attention_lora
    # and "g"/"m" layers as adapter_rank, mamba_d_state, use_shared_attention_adapter, hybrid
    # and mamba)
    "zamba2-2.7b-instruct-v2.json": ("zamba2", 2_662_214_560),
    "zamba2-1.2b.json": ("zamba2", 1_215_064_704),
    # --- the rest of the frontier (issue 20 §5) ---
    # MiniMaxAI/MiniMax-M2 and MiniMax-M2.1 config.json: "230B total" on the cards (228.7B)
    "minimax-m2.json": ("minimax_m2", 228_689_748_992),
    "minimax-m2.1.json": ("minimax_m2", 228_689_748_992),
    # allenai/Olmo-3-1025-7B and Olmo-3-1125-32B config.json: "7B" (7.3B) and "32B" (32.2B)
    "olmo-3-1025-7b.json": ("olmo3", 7_298_011_136),
    "olmo-3-1125-32b.json": ("olmo3", 32_233_522_176),
    # ibm-granite/granite-3.0-1b-a400m-base and 3b-a800m-base config.json (tied): "1.3B" and
    # "3.3B" total (Granite 3.0 report, table 1)
    "granite-3.0-1b-a400m-base.json": ("granitemoe", 1_334_628_352),
    "granite-3.0-3b-a800m-base.json": ("granitemoe", 3_298_793_472),
    # bigcode/starcoder2-3b and starcoder2-7b config.json (use_bias, tied by Starcoder2Config's
    # default): 3.03B and 7.17B on the Hub
    "starcoder2-3b.json": ("starcoder2", 3_030_371_328),
    "starcoder2-7b.json": ("starcoder2", 7_173_923_840),
    # CohereForAI/c4ai-command-r7b-12-2024 (8.03B, "7B" in its name) and c4ai-command-a-03-2025
    # ("111B") config.json, both tied
    "c4ai-command-r7b-12-2024.json": ("cohere2", 8_028_033_024),
    "c4ai-command-a-03-2025.json": ("cohere2", 111_057_580_032),
    # EleutherAI/gpt-neo-125M, 1.3B, 2.7B config.json (tied): 125M, 1.3B (1.32B), 2.7B (2.65B)
    "gpt-neo-125m.json": ("gpt_neo", 125_198_592),
    "gpt-neo-1.3b.json": ("gpt_neo", 1_315_575_808),
    "gpt-neo-2.7b.json": ("gpt_neo", 2_651_307_520),
    # databricks/dbrx-base and dbrx-instruct config.json: "132B total parameters" (their
    # moe_normalize_expert_weights written 1.0 for 1: transformers 5's strict DbrxFFNConfig
    # refuses an int there)
    "dbrx-base.json": ("dbrx", 131_596_523_520),
    "dbrx-instruct.json": ("dbrx", 131_596_523_520),
    # baidu/ERNIE-4.5-0.3B-PT and -Base-PT config.json (tied): "0.36B"
    "ernie-4.5-0.3b-pt.json": ("ernie4_5", 360_748_032),
    "ernie-4.5-0.3b-base-pt.json": ("ernie4_5", 360_748_032),
    # baidu/ERNIE-4.5-21B-A3B-PT and -Base-PT config.json (tied): "21B total" (21.8B)
    "ernie-4.5-21b-a3b-pt.json": ("ernie4_5_moe", 21_825_436_160),
    "ernie-4.5-21b-a3b-base-pt.json": ("ernie4_5_moe", 21_825_436_160),
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_config_counts_as_transformers_builds_it(capsys, name):
    arch, total = PUBLISHED[name]
    data = count_json(capsys, "--config", str(CONFIGS / name))
    assert data["arch"] == arch and data["total"] == total
    assert data["framework"] == "transformers"


# The families transformers alone checks, by the pass that added them (issue 20, §4, §5): one
# table; REST is also read alone below (the report's rules of thumb were written for that pass's
# families; their derived ≡ hand-written check is tests/test_derive_crosscheck.py's, over every
# architecture with a transformers reference).
FRONTIER = ["deepseek_v2", "deepseek_v3", "deepseek_v32", "llama4_text", "mamba", "mamba2", "qwen3_next",
            "glm4_moe", "olmo2", "olmoe", "granite", "cohere", "phi", "gpt_j",
            "phimoe"]
HYBRIDS = ["jamba", "nemotron_h", "granitemoehybrid", "falcon_h1", "zamba2"]
REST = ["minimax_m2", "olmo3", "granitemoe", "starcoder2", "cohere2", "gpt_neo", "dbrx",
        "ernie4_5", "ernie4_5_moe"]
TRANSFORMERS_ONLY = FRONTIER + HYBRIDS + REST


@pytest.mark.parametrize("arch_id", TRANSFORMERS_ONLY)
def test_checked_by_transformers_only(arch_id):
    assert registry.get(arch_id).checked_by == ("transformers",)


@pytest.mark.slow
@pytest.mark.parametrize("arch_id", TRANSFORMERS_ONLY)
def test_formula_with_deltas_is_proven_against_transformers(arch_id):
    from paramcount.analyze.prove import transformers as hf_prove

    result = hf_prove.prove(registry.get(arch_id))
    assert result.status == "proven", result


def _preset_results(arch_ids):
    """Stand-ins for the report's verifications: what its sections read (arch, set, values)."""
    from types import SimpleNamespace

    return [SimpleNamespace(arch=a, name=hs.name, hparams=registry.get(a).resolve(hs.hparams))
            for a in arch_ids for hs in registry.get(a).hparam_sets()]


def test_report_rules_of_thumb_and_plots_take_in_the_rest_of_the_frontier():
    """The rules-of-thumb page sizes the dense families against 12·L·d_e² and Megatron-LM and
    sets each mixture of experts' active count beside its total; the figures draw them all."""
    from paramcount.output.plots import _report_data, report_figure_names
    from paramcount.output.render import rules_of_thumb_section

    results = _preset_results(REST)
    text = rules_of_thumb_section(results, {a: registry.get(a) for a in REST})
    assert "| gpt_neo | gpt_neo_125m | 125,198,592 |" in text  # the closed forms' table
    assert ("| minimax_m2 | minimax_m2 | 228,689,748,992 (229B) | 11,030,537,216 (11B) | 4.82% |"
            in text)
    assert "| dbrx | dbrx_base | 131,596,523,520 (132B) | 36,469,708,800 (36.5B) | 27.7% |" in text
    sets, series = _report_data(results)
    assert {s[1].id for s in sets} == set(REST)
    assert {"gpt_neo", "olmo3", "starcoder2", "cohere2", "granitemoe"} <= set(series)
    assert report_figure_names(results) == ["composition.svg", "scaling.svg"]
