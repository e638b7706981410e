"""Granite 4 (a state-space hybrid, issue 20 §4): H-Small's active count, Micro without experts,
the proof's restriction, and the layer names old and new."""

from __future__ import annotations

import json

from tests._shared import CONFIGS
from tests._shared import count_json

from paramcount.core import symbols
from paramcount.model import registry


def test_granite_4_h_small_9b_active_and_micro_without_experts(capsys):
    """H-Small: 10 of 72 experts per token, 8.8B active (the card's "9B active"); Micro's
    num_local_experts 0 reads as moe = 0 (its num_experts_per_tok 0 unread)."""
    data = count_json(capsys, "--config", str(CONFIGS / "granite-4.0-h-small.json"))
    assert data["config"]["read"]["L_att"] == 4 and data["active"] == 8_803_121_664
    read = count_json(capsys, "--config", str(CONFIGS / "granite-4.0-micro.json"))["config"]["read"]
    assert read["moe"] == 0 and read["L_att"] == 40 and "E" not in read


def test_granite_4_proof_leaves_the_mamba_heads_free():
    """Granite 4 is proven with H_ssm and M independent: the proof's one restriction is the
    sub-lattice x_in = H_ssm·x_in' (x_in·d_e divisible by H_ssm, met through x_in), dense in
    every hyperparameter, so its polynomial identity holds at every valid set."""
    from paramcount.analyze.prove import transformers as hf_prove
    from paramcount.core.hparams import Divisible

    arch = registry.get("granitemoehybrid")
    assert arch.transformers.prove_within == (Divisible(symbols.x_in, symbols.H_ssm),)
    proof = hf_prove.proof_arch(arch)
    assert not any(getattr(c, "op", None) == "==" for c in proof.constraints)
    hp = arch.resolve(arch.preset("granite_4_0_h_small").hparams)
    assert hp["H_ssm"] != hp["M"]


def test_granite_4_reads_new_and_legacy_layer_names(capsys, tmp_path):
    data = json.loads((CONFIGS / "granite-4.0-h-small.json").read_text())
    data["layer_types"] = ["full_attention"] * 3 + ["linear_attention"] * 36 + ["attention"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    assert count_json(capsys, "--config", str(path))["config"]["read"]["L_att"] == 4
