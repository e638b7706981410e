"""DeepSeek-V2, V3 and V3.2 (hand-written, issue 20: latent attention, shared experts,
multi-token prediction): the model cards' figures come out of the formulas as named terms, and
the query projection is read from q_lora_rank."""

from __future__ import annotations

from tests._shared import CONFIGS
from tests._shared import built_values
from tests._shared import count_json


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
    import json

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
