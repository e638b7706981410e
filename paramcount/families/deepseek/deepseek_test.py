"""DeepSeek-V2, V3 and V3.2 (hand-written, issue 20: latent attention, shared experts,
multi-token prediction): the model cards' figures come out of the formulas as named terms, and
the query projection is read from q_lora_rank."""

from __future__ import annotations

import json

import pytest
from tests._shared import CONFIGS
from tests._shared import built_values
from tests._shared import count_json
from tests._shared import on_torch

from paramcount.cli.main import main


def test_deepseek_v3_card_figures_are_named_terms():
    """671B is what the config builds; 685B on the card adds the MTP module its checkpoint
    stores (684.5B: the card's 671B + 14B, each rounded); about 37B are active per token."""
    arch, values = built_values("deepseek_v3", "deepseek_v3")
    whole = int(arch.formula.trainable_total(True).subs(values))
    mtp = int(arch.formula.find("mtp").trainable_total(True).subs(values))
    assert whole == 684_489_830_400 and mtp == 13_463_426_048
    hf, hf_values = built_values("deepseek_v3", "deepseek_v3", "transformers")
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
    arch, values = built_values("deepseek_v2", "deepseek_v2_lite", "transformers")
    active = int(arch.formula.active_total().subs(values))
    token = int(arch.formula.find("embeddings.token").total().subs(values))
    assert active == 2_661_150_208 and active - token == 2_451_435_008


def test_plain_query_when_q_lora_rank_is_null(capsys):
    """q_lora_rank null builds one q_proj; set, q_a_proj + norm + q_b_proj: the presence of the
    key is the flag q_lora, its value r_q."""
    data = count_json(capsys, "--config", str(CONFIGS / "deepseek-v2-lite.json"))
    assert data["config"]["read"]["q_lora"] == 0 and "r_q" not in data["config"]["read"]
    data = count_json(capsys, "--config", str(CONFIGS / "deepseek-v3.json"))
    assert data["config"]["read"]["q_lora"] == 1 and data["config"]["read"]["r_q"] == 1536


def test_deepseek_v32_indexer_and_card_figure():
    """V3.2's lightning indexer adds 851.5M to V3's 671.0B; with the stored MTP module (its own
    indexer included) 685.4B, the V3.2-Exp card's "685B"."""
    arch, values = built_values("deepseek_v32", "deepseek_v3_2_exp")
    indexer = int(arch.formula.find("blocks.attention.indexer").total().subs(values)) * 61
    assert indexer == 671_877_929_216 - 671_026_404_352 == 851_524_864
    assert int(arch.formula.trainable_total(True).subs(values)) == 685_355_314_688


def test_absent_q_lora_rank_is_the_config_class_default(capsys, tmp_path):
    """A file without q_lora_rank gets DeepseekV2/V3Config's default, 1536 (a low-rank query),
    not the plain query of an explicit null: read so, the count is the one transformers builds
    (its q_a_proj, norm and q_b_proj: 2048·1536 + 1536 + 1536·16·192 more than a plain
    q_proj of 2048·16·192)."""
    data = json.loads((CONFIGS / "deepseek-v2-lite.json").read_text())
    plain = count_json(capsys, "--config", str(CONFIGS / "deepseek-v2-lite.json"))
    del data["q_lora_rank"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    read = count_json(capsys, "--config", str(path))
    assert read["config"]["read"]["q_lora"] == 1 and read["config"]["read"].get("r_q", 1536) == 1536
    layers, d, heads, qk = 27, 2048, 16, 192
    low_rank = d * 1536 + 1536 + 1536 * heads * qk
    assert read["total"] - plain["total"] == layers * (low_rank - d * heads * qk)


_TINY_V2 = {"model_type": "deepseek_v2", "architectures": ["DeepseekV2ForCausalLM"], "vocab_size": 97,
            "hidden_size": 32, "num_attention_heads": 4, "num_key_value_heads": 4, "intermediate_size": 48,
            "num_hidden_layers": 2, "n_routed_experts": 4, "n_shared_experts": 1, "moe_intermediate_size": 12,
            "num_experts_per_tok": 2, "q_lora_rank": 10, "kv_lora_rank": 8, "qk_nope_head_dim": 6,
            "qk_rope_head_dim": 4, "v_head_dim": 5, "first_k_dense_replace": 1, "n_group": 1,
            "topk_group": 1, "tie_word_embeddings": False}
# (config, a field changed, what the forward then raises)
_FORWARD_BREAKERS = {
    "v2_odd_nope": (_TINY_V2, {"qk_nope_head_dim": 5}, "stride divisible by 2"),
    "v2_odd_kv_rank": (_TINY_V2, {"kv_lora_rank": 7}, "stride divisible by 2"),
    "v32_indexer_narrower_than_rotary": (
        {**_TINY_V2, "model_type": "deepseek_v32", "architectures": ["DeepseekV32ForCausalLM"],
         "index_n_heads": 2, "index_head_dim": 4}, {"index_head_dim": 3}, "split_with_sizes"),
}


def _build_and_forward(path: str) -> tuple[int, str]:
    """(the parameters transformers builds from ``path`` on meta, what a forward raises)."""
    import torch
    from reference_models.hf_costs import gather_experts
    from transformers import AutoConfig
    from transformers import AutoModelForCausalLM

    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(path))
    gather_experts(model)  # as the cost measurement runs it
    built = sum(p.numel() for p in model.parameters())
    try:
        model(torch.zeros(1, 3, dtype=torch.long, device="meta"))
    except RuntimeError as exc:
        return built, str(exc)
    return built, ""


@pytest.mark.parametrize("case", sorted(_FORWARD_BREAKERS))
def test_a_set_only_a_forward_refuses_is_counted_with_a_note_and_not_costed(tmp_path, capsys, case):
    """V2's rotary part views float32 slices as complex numbers in place (every stride but the
    last even: qk_nope_head_dim and kv_lora_rank even), V3.2's indexer splits its heads into
    the rotary width and the rest (index_head_dim >= qk_rope_head_dim). transformers builds such
    a config and its forward fails: count gives the build's count with the note, and refuses
    its costs (--context), which a forward measures."""
    config, change, raised = _FORWARD_BREAKERS[case]
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**config, **change}))
    built, message = on_torch(_build_and_forward, str(tmp_path))
    assert raised in message
    data = count_json(capsys, "--config", str(path))
    assert data["total"] == built
    assert len(data["notes"]) == 1 and "a forward pass needs" in data["notes"][0]
    assert main(["count", "--config", str(path), "--context", "16"]) == 2
    # the unchanged config runs its forward
    path.write_text(json.dumps(config))
    assert on_torch(_build_and_forward, str(tmp_path))[1] == ""
