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


def test_the_scan_s_chunk_is_the_file_s(capsys):
    """Falcon-H1's released files run the SSD scan in chunks of 128 (mamba_chunk_size); the
    class's default is 256. The FLOPs tree held 256: 11,400,250,343,424 FLOPs for the 0.5B
    config at T = 4,096, B = 2, where transformers' forward counts 11,075,007,234,048
    (FlopCounterMode, meta device: `costs.check_config`). The preset reads the file's chunk."""
    import json
    from pathlib import Path

    from paramcount.cli.main import main

    config = Path(__file__).parents[3] / "tests" / "configs" / "falcon-h1-0.5b-base.json"
    for source in (["--config", str(config)], ["falcon_h1", "--preset", "falcon_h1_0_5b"]):
        assert main(["count", *source, "--context", "4096", "--batch", "2", "--json"]) == 0
        flops = json.loads(capsys.readouterr().out)["costs"]["flops"]
        assert flops["total"] == 11_075_007_234_048, source
        assert "Q_ssd" in flops["formula"]
