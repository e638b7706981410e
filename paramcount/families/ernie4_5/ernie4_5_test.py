"""ERNIE 4.5, dense and MoE (issue 20 §5): the MoE's activated figure and frozen score bias,
its sparse blocks read by transformers' rule, and projection biases refused."""

from __future__ import annotations

import json

import pytest
from tests._shared import CONFIGS
from tests._shared import active_and_table
from tests._shared import built_values
from tests._shared import count_json

from paramcount.cli.main import main


def test_ernie4_5_moe_3b_activated_and_frozen_score_bias():
    """ERNIE-4.5-21B-A3B's "3B activated": 6 of 64 routed experts and the 2 shared ones in 27
    sparse blocks, the one dense block, attention: 3.35B with the (tied) token table, 3.09B
    without. The router's score-correction bias is a frozen parameter: 64 per sparse block."""
    active, table = active_and_table("ernie4_5_moe", "ernie4_5_21b_a3b")
    assert active == 3_352_148_480 and active - table == 3_087_383_040
    arch, values = built_values("ernie4_5_moe", "ernie4_5_21b_a3b", "transformers")
    assert int(arch.formula.trainable_total(False).subs(values)) == 64 * 27


@pytest.mark.parametrize(("keys", "dense"), [
    ({"moe_layer_start_index": 0, "moe_layer_end_index": -1}, 0),
    ({"moe_layer_end_index": None}, 1),
    ({"moe_layer_end_index": 20}, 8),  # blocks 21 to 27 dense too
    ({"moe_layer_interval": 2}, 14),  # blocks 1, 3, ..., 27 sparse
])
def test_ernie4_5_moe_reads_its_sparse_blocks_by_transformers_rule(capsys, tmp_path, keys, dense):
    data = json.loads((CONFIGS / "ernie-4.5-21b-a3b-pt.json").read_text()) | keys
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    assert count_json(capsys, "--config", str(path))["config"]["read"]["L_dense"] == dense


def test_ernie_refuses_projection_biases(capsys, tmp_path):
    data = json.loads((CONFIGS / "ernie-4.5-0.3b-pt.json").read_text()) | {"use_bias": True}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    assert main(["count", "--config", str(path)]) == 2
    assert "use_bias" in capsys.readouterr().err
