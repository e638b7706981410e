"""Mamba and Mamba-2 (hand-written, issue 20): what their configs' derived widths read as."""

from __future__ import annotations

import json

from tests._shared import CONFIGS
from tests._shared import count_json

from paramcount.cli.main import main
from paramcount.model import registry


def test_mamba_time_step_rank_auto_is_the_ceiling_of_d_e_over_16(capsys, tmp_path):
    data = json.loads((CONFIGS / "mamba-130m-hf.json").read_text())
    data |= {"time_step_rank": "auto", "hidden_size": 760}
    del data["intermediate_size"]  # (its 1536 is the mixer's width, read: issue 32)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    assert count_json(capsys, "--config", str(path))["config"]["read"]["r_dt"] == 48
    assert registry.get("mamba").resolve(dict(v=10, d_e=760, L=1))["r_dt"] == 48


def test_mamba2_head_dim_must_be_expand_times_d_e_over_heads(capsys, tmp_path):
    data = json.loads((CONFIGS / "mamba-codestral-7b-v0.1.json").read_text())
    data["head_dim"] = 32
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    assert main(["count", "--config", str(path)]) == 2
    assert "head_dim = 32" in capsys.readouterr().err
