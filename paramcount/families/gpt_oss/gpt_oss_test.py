"""gpt-oss: the model card's active figures, and k experts in place of E."""

from __future__ import annotations

import pytest

from paramcount.model import registry


@pytest.mark.parametrize(("preset", "active_billions"), [
    ("gpt_oss_20b_en", 3.6), ("gpt_oss_120b_en", 5.1)])
def test_gpt_oss_active_parameters_match_the_model_card(preset, active_billions):
    # OpenAI's model card gives active parameters per token without the input embedding table
    # (a lookup reads one row of it); the unembedding is all used.
    arch = registry.get("gpt_oss")
    hp = arch.resolve(arch.preset(preset).hparams)
    active = int(arch.formula.active_total().xreplace(arch.values(hp)))
    assert active < arch.count(hp)
    assert round((active - hp["v"] * hp["d_e"]) / 1e9, 1) == active_billions


def test_gpt_oss_active_count_has_k_experts_in_place_of_e():
    arch = registry.get("gpt_oss")
    hp = arch.resolve(arch.preset("gpt_oss_20b_en").hparams)
    values = arch.values(hp)
    expert = hp["d_e"] * 2 * hp["d_f"] + 2 * hp["d_f"] + hp["d_f"] * hp["d_e"] + hp["d_e"]
    idle = int(arch.total().xreplace(values)) - int(arch.formula.active_total().xreplace(values))
    assert idle == hp["L"] * (hp["E"] - hp["k"]) * expert
