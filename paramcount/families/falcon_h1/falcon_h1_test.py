"""Falcon-H1 (a state-space hybrid, issue 20 §4): its inner width read through the heads."""

from __future__ import annotations

import json

from tests._shared import CONFIGS
from tests._shared import count_json

from paramcount.cli.main import main


def test_falcon_h1_inner_width_is_heads_times_head_width(capsys, tmp_path):
    """mamba_d_ssm is H_ssm·d_ssm: read through the heads (a non-multiple refused); null, it is
    mamba_expand·hidden_size; the optional gated norm adds H_ssm·d_ssm per block."""
    data = json.loads((CONFIGS / "falcon-h1-0.5b-base.json").read_text())
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data | {"mamba_d_ssm": None, "mamba_n_heads": 32}))
    assert count_json(capsys, "--config", str(path))["config"]["read"]["d_ssm"] == 64
    path.write_text(json.dumps(data | {"mamba_d_ssm": 1537}))
    assert main(["count", "--config", str(path)]) == 2
    assert "mamba_d_ssm = 1537" in capsys.readouterr().err
    path.write_text(json.dumps(data | {"mamba_rms_norm": True}))
    assert count_json(capsys, "--config", str(path))["total"] == 521_411_104 + 36 * 1536
