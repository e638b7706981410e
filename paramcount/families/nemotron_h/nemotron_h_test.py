"""Nemotron-H (a state-space hybrid, issue 20 §4): its blocks read from the pattern or the list,
its never-tied head, and the latent MoE."""

from __future__ import annotations

import json
from pathlib import Path

from tests._shared import CONFIGS
from tests._shared import count_json

from paramcount.cli.main import main


def _nemotron(tmp_path, **changes) -> Path:
    data = json.loads((CONFIGS / "nemotron-h-8b-base-8k.json").read_text()) | changes
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    return path


def test_nemotron_h_blocks_from_the_pattern_or_the_list(capsys, tmp_path):
    """hybrid_override_pattern (M, *, -, E) and layers_block_type (new or legacy names) read
    alike; experts (E) are a fourth kind of block."""
    read = count_json(capsys, "--config", str(CONFIGS / "nemotron-h-8b-base-8k.json"))["config"]["read"]
    assert (read["L"], read["L_att"], read["L_mlp"], read["L_moe"]) == (52, 4, 24, 0)
    blocks = ["mamba", "attention", "mlp", "moe", "linear_attention", "full_attention"]
    path = _nemotron(tmp_path, hybrid_override_pattern=None, num_hidden_layers=None,
                     layers_block_type=blocks)
    read = count_json(capsys, "--config", str(path))["config"]["read"]
    assert (read["L"], read["L_att"], read["L_mlp"], read["L_moe"]) == (6, 2, 1, 1)
    path = _nemotron(tmp_path, hybrid_override_pattern="ME*-E", num_hidden_layers=5,
                     n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=8,
                     moe_shared_expert_intermediate_size=16)
    data = count_json(capsys, "--config", str(path))
    assert data["config"]["read"]["L_moe"] == 2 and data["active"] < data["total"]


def test_nemotron_h_refuses_a_pattern_of_the_wrong_length(capsys, tmp_path):
    path = _nemotron(tmp_path, hybrid_override_pattern="M*-")
    assert main(["count", "--config", str(path)]) == 2
    assert "layers_block_type" in capsys.readouterr().err


def test_nemotron_h_head_is_never_tied(capsys, tmp_path):
    """NemotronHForCausalLM ties no weights: tie_word_embeddings true changes no count."""
    path = _nemotron(tmp_path, tie_word_embeddings=True)
    assert count_json(capsys, "--config", str(path))["total"] == 8_100_852_736


def test_nemotron_h_latent_moe_is_read_and_counted(capsys, tmp_path):
    """moe_latent_size set (Nemotron 3 Super's latent MoE): the routed experts work on d_lat,
    fc1/fc2_latent_proj project d_e → d_lat → d_e; null, the experts work on d_e."""
    experts = dict(hybrid_override_pattern="ME*-E", num_hidden_layers=5, n_routed_experts=4,
                   num_experts_per_tok=2, moe_intermediate_size=8,
                   moe_shared_expert_intermediate_size=16)
    plain = count_json(capsys, "--config", str(_nemotron(tmp_path, **experts)))
    assert plain["config"]["read"]["moe_lat"] == 0 and "d_lat" not in plain["config"]["read"]
    latent = count_json(capsys, "--config",
                    str(_nemotron(tmp_path, **experts, moe_latent_size=16)))
    assert (latent["config"]["read"]["moe_lat"], latent["config"]["read"]["d_lat"]) == (1, 16)
    # per expert block: 4 experts' up and down on 16 in place of 4096, and the two projections
    per_block = 4 * 8 * 2 * (16 - 4096) + 2 * 4096 * 16
    assert latent["total"] - plain["total"] == 2 * per_block == -260_096
    assert latent["active"] - plain["active"] == 2 * (2 * 8 * 2 * (16 - 4096) + 2 * 4096 * 16)
