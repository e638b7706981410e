"""Zamba 2 (a state-space hybrid, issue 20 §4): shared blocks counted once, adapters per layer,
and the untied config refused."""

from __future__ import annotations

import json

from tests._shared import CONFIGS
from tests._shared import built_values

from paramcount.cli.main import main
from paramcount.core import symbols


def test_zamba2_shared_blocks_count_once_adapters_per_layer():
    """Zamba2-2.7B: 9 hybrid layers reuse 2 shared blocks, counted twice (not 9 times); each
    hybrid layer has its own linear and MLP adapter."""
    arch, values = built_values("zamba2", "zamba2_2_7b", "transformers")
    shared = arch.formula.find("shared_block")
    assert str(shared.times) == "B_mem" and values[symbols.get("B_mem")] == 2
    per_block = int(shared.total().subs(values)) // 2
    assert int(shared.total().subs(values)) == 2 * per_block == 340_802_560
    assert int(arch.formula.find("adapters").total().subs(values)) == 9 * 2_949_120


def test_zamba2_refuses_an_untied_config(capsys, tmp_path):
    """Untied, transformers builds an unshared block per hybrid layer: refused, naming why."""
    data = json.loads((CONFIGS / "zamba2-2.7b-instruct-v2.json").read_text())
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data | {"tie_word_embeddings": False}))
    assert main(["count", "--config", str(path)]) == 2
    assert "tie_word_embeddings" in capsys.readouterr().err
