"""Model types transformers builds with a class a family covers (issue 32, defect 4): exaone
(LlamaForCausalLM), sarvam_mla (DeepseekV3ForCausalLM) and sarvam_moe (Glm4MoeForCausalLM) are
read with the family's table, each key the file lacks at the type's own config class's default,
and counted as a meta-device build of that config class counts them; the static table
(paramcount/analyze/hf_types.py) is the installed transformers' auto mappings."""

from __future__ import annotations

import json

import pytest

from tests._shared import on_torch, torch_side
from tests.test_derive import _run_cli

# small configs; each leaves out a key whose default differs from the family's (sarvam_mla's
# q_lora_rank: None, DeepSeek-V3's 1536; sarvam_moe's use_qk_norm: true, GLM-4.5's false)
SMALL = {
    "sarvam_mla": ("deepseek_v3", "DeepseekV3ForCausalLM", {
        "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 128,
        "moe_intermediate_size": 32, "num_hidden_layers": 3, "num_attention_heads": 4,
        "num_key_value_heads": 4, "n_routed_experts": 8, "num_experts_per_tok": 2,
        "kv_lora_rank": 16, "qk_rope_head_dim": 8, "v_head_dim": 16, "qk_nope_head_dim": 16}),
    "exaone": ("llama", "LlamaForCausalLM", {
        "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16}),
    "sarvam_moe": ("glm4_moe", "Glm4MoeForCausalLM", {
        "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 128,
        "moe_intermediate_size": 32, "num_hidden_layers": 3, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 16, "n_routed_experts": 8,
        "num_experts_per_tok": 2}),
}


def _meta_count(model_type: str, values: dict) -> tuple[str, int]:
    """(In a torch worker.) The class transformers builds from ``values`` of ``model_type``'s
    config class, and its parameters, on the meta device."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    cfg = AutoConfig.for_model(model_type, **values)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(cfg)
    return type(model).__name__, sum(p.numel() for p in model.parameters())


def _count(tmp_path, config: dict, *extra: str) -> tuple[dict, str]:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    code, out, err = _run_cli(["count", *extra, "--config", str(path), "--json"])
    assert code == 0, err
    code, text, err = _run_cli(["count", *extra, "--config", str(path)])
    assert code == 0, err
    return json.loads(out), text


@pytest.mark.parametrize("model_type", sorted(SMALL))
def test_a_new_model_type_is_read_by_its_family_s_table(tmp_path, model_type):
    family, cls, values = SMALL[model_type]
    out, text = _count(tmp_path, {"model_type": model_type, **values})
    assert out["arch"] == family
    assert out["config"]["via"].startswith(f"{model_type} is built by {cls}")
    assert f"read as {family}'s table: {model_type} is built by {cls}" in text
    assert "derived" not in out
    assert on_torch(_meta_count, model_type, values) == (cls, out["total"])


def test_named_as_the_family_and_with_its_class(tmp_path):
    family, cls, values = SMALL["sarvam_mla"]
    config = {"model_type": "sarvam_mla", "architectures": [cls], **values}
    out, _ = _count(tmp_path, config, family)
    assert out["arch"] == family
    assert out["total"] == on_torch(_meta_count, "sarvam_mla", values)[1]


@torch_side
def test_the_table_is_the_installed_transformers_auto_mappings():
    from paramcount.analyze import hf_types, hf_types_generate

    assert hf_types_generate.table() == hf_types.BUILT_BY
    assert {"exaone", "sarvam_mla", "sarvam_moe"} <= set(hf_types.BUILT_BY)


@pytest.mark.parametrize("model_type", ["exaone", "gpt-sw3", "internlm3", "iquestcoder",
                                        "sarvam_mla", "sarvam_moe"])
def test_every_entry_at_its_defaults_counts_as_its_build(tmp_path, model_type):
    from paramcount.analyze import hf_types

    cls, _ = hf_types.BUILT_BY[model_type]
    out, _ = _count(tmp_path, {"model_type": model_type})  # every key at its class's default
    assert on_torch(_meta_count, model_type, {}) == (cls, out["total"])
