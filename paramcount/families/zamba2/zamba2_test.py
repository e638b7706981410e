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


def _built(config: dict) -> int:
    """(In a torch worker.) The parameters transformers builds for ``config``, on the meta
    device (tied tensors once)."""
    import torch
    import transformers

    with torch.device("meta"):
        model = transformers.Zamba2ForCausalLM(transformers.Zamba2Config(**config))
    return sum(p.numel() for p in model.parameters())


def test_more_shared_blocks_than_hybrid_layers_build_one_a_hybrid_layer(capsys, tmp_path):
    """Zamba2ForCausalLM ties hybrid layer j's block to block j mod num_mem_blocks among those
    built before it: with more blocks than hybrid layers, each hybrid layer keeps its own and the
    rest are never built (its adapters are placed alike). transformers builds such a config;
    `count --config` refused it ("B_mem must be <= L_hyb"). It counts it now, as transformers
    builds it: the same model as num_mem_blocks = the hybrid layers."""
    from tests._shared import on_torch

    data = json.loads((CONFIGS / "zamba2-1.2b.json").read_text())
    hybrid = data["layers_block_type"].count("hybrid")
    counts = []
    for blocks in (hybrid, hybrid + 5):
        path = tmp_path / f"config-{blocks}.json"
        path.write_text(json.dumps(data | {"num_mem_blocks": blocks}))
        assert main(["count", "--config", str(path), "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        counts.append(out["total"])
    assert counts[0] == counts[1] == on_torch(_built, data | {"num_mem_blocks": hybrid + 5})
    # and said: the file's value, the one read
    assert out["config"]["reread"] == {"num_mem_blocks": {"file": hybrid + 5, "read": hybrid}}
    assert main(["count", "--config", str(path)]) == 0
    assert f"keys read as transformers builds them: num_mem_blocks={hybrid + 5} as {hybrid}" \
        in capsys.readouterr().out
