"""Llama 4's text models (hand-written, issue 20): Scout's and Maverick's totals and their
17B active, and the sparse blocks read from the step or the list."""

from __future__ import annotations

import json

import pytest
from tests._shared import CONFIGS
from tests._shared import built_values
from tests._shared import count_json

from paramcount.core import symbols


@pytest.mark.parametrize(("preset", "moe", "total"), [
    ("llama4_scout_17b_16e", 48, 107_769_861_120),
    ("llama4_maverick_17b_128e", 24, 400_711_848_960),
])
def test_llama4_totals_and_17b_active(preset, moe, total):
    """Scout: every block sparse (16 experts); Maverick: every second (128 experts). Both
    activate 17.2B per token: one routed expert beside the shared one. The published 109B adds
    the vision tower (871,932,416: 108.64B)."""
    arch, values = built_values("llama4_text", preset, "transformers")
    assert values[symbols.get("L_moe")] == moe
    assert int(arch.formula.trainable_total(True).subs(values)) == total
    active = int(arch.formula.active_total().subs(values))
    assert 17_000_000_000 < active < 17_500_000_000


def test_llama4_moe_layers_read_from_the_step_or_the_list(capsys, tmp_path):
    data = json.loads((CONFIGS / "llama-4-maverick-17b-128e-text.json").read_text())
    data["moe_layers"] = [0, 5, 7]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    assert count_json(capsys, "--config", str(path))["config"]["read"]["L_moe"] == 3
