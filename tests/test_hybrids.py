"""The state-space hybrids, hand-written (issue 20 §4): Jamba (with its experts), Nemotron-H,
Granite 4, Falcon-H1, Zamba 2. Their published configs read as what transformers builds, the
layer patterns come from the configs' own fields, the cards' figures come out of the formulas,
and the formula equals transformers' build (slow: proven for all hyperparameters)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paramcount.cli.main import main
from paramcount.core import symbols
from paramcount.model import registry
from paramcount.model.components.stacks import PERIODIC_ATTENTION, periodic
from paramcount.model.frameworks import for_framework

CONFIGS = Path(__file__).with_name("configs")

# file → (architecture read, transformers' count of the class the file names): the published
# config.json values (hand-written from the released checkpoints' configs)
PUBLISHED = {
    # ai21labs/Jamba-v0.1 and AI21-Jamba-1.5-Mini config.json: "52B total, 12B active" on the
    # cards (51.6B, 12.1B)
    "jamba-v0.1.json": ("jamba", 51_570_323_328),
    "ai21-jamba-1.5-mini.json": ("jamba", 51_570_323_328),
    # nvidia/Nemotron-H-8B-Base-8K config.json (its hybrid_override_pattern: 24 M, 4 *, 24 -)
    # and nvidia/NVIDIA-Nemotron-Nano-9B-v2 config.json: "8.89B" on the card
    "nemotron-h-8b-base-8k.json": ("nemotron_h", 8_100_852_736),
    "nvidia-nemotron-nano-9b-v2.json": ("nemotron_h", 8_888_227_328),
    # ibm-granite/granite-4.0-h-small config.json values ("32B total"; its layer_types hold 36
    # mamba and 4 attention: placed here at blocks 5, 15, 25, 35 as in the other 40-block
    # Granite 4 hybrids, which blocks changing no count) and granite-4.0-micro ("3B": all 40
    # blocks attention, no experts)
    "granite-4.0-h-small.json": ("granitemoehybrid", 32_207_337_984),
    "granite-4.0-micro.json": ("granitemoehybrid", 3_402_836_480),
    # tiiuae/Falcon-H1-0.5B-Base config.json (0.52B; its mamba_d_ssm, 1536, is mamba_n_heads ·
    # mamba_d_head, as FalconH1Config checks) and tiiuae/Falcon-H1-7B-Base's values (7.59B;
    # the keys not quoted left at FalconH1Config's defaults)
    "falcon-h1-0.5b-base.json": ("falcon_h1", 521_411_104),
    "falcon-h1-7b-base.json": ("falcon_h1", 7_585_513_568),
    # Zyphra/Zamba2-2.7B-Instruct-v2 config.json ("2.7B") and Zyphra/Zamba2-1.2B's ("1.2B"),
    # the latter in transformers' spelling (its lora_rank, state_size, use_shared_attention_lora
    # and "g"/"m" layers as adapter_rank, mamba_d_state, use_shared_attention_adapter, hybrid
    # and mamba)
    "zamba2-2.7b-instruct-v2.json": ("zamba2", 2_662_214_560),
    "zamba2-1.2b.json": ("zamba2", 1_215_064_704),
}


def _count(capsys, *args) -> dict:
    assert main(["count", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _values(arch_id: str, preset: str):
    arch = registry.get(arch_id)
    hp = arch.resolve(arch.preset(preset).hparams)
    built = for_framework(arch, "transformers", hp)
    return built, built.values(hp)


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_config_counts_as_transformers_builds_it(capsys, name):
    arch, total = PUBLISHED[name]
    data = _count(capsys, "--config", str(CONFIGS / name))
    assert data["arch"] == arch and data["total"] == total
    assert data["framework"] == "transformers"


def test_jamba_12b_active_and_its_layer_counts(capsys):
    """Jamba-v0.1: 4 attention blocks of 32 (period 8, offset 4), 16 expert blocks (period 2,
    offset 1); 12.1B active per token (2 of the 16 experts), the card's "12B active"."""
    data = _count(capsys, "--config", str(CONFIGS / "jamba-v0.1.json"))
    read = data["config"]["read"]
    assert (read["L_att"], read["L_moe"]) == (4, 16)
    arch, values = _values("jamba", "jamba_v0_1")
    assert int(arch.formula.active_total().subs(values)) == 12_110_311_296


def test_jamba_layer_pattern_reads_offset_zero(capsys, tmp_path):
    """An offset of 0 is the first layer, not a missing value: period 4, offset 0 marks layers
    0, 4, ... of 32 (8 attention blocks); a negative offset is refused in one line."""
    data = json.loads((CONFIGS / "jamba-v0.1.json").read_text())
    data |= {"attn_layer_period": 4, "attn_layer_offset": 0}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    assert _count(capsys, "--config", str(path))["config"]["read"]["L_att"] == 8
    data["attn_layer_offset"] = -1
    path.write_text(json.dumps(data))
    assert main(["count", "--config", str(path)]) == 2
    assert "attn_layer_offset = -1" in capsys.readouterr().err


@pytest.mark.parametrize(("layers", "count"), [(32, 4), (32, 16), (5, 2), (5, 0), (5, 5), (7, 3)])
def test_periodic_writes_a_period_and_offset_marking_count_layers(layers, count):
    period, offset = periodic(layers, count)
    assert 0 <= offset < period
    assert PERIODIC_ATTENTION.counts(layers, attn_layer_period=period,
                                     attn_layer_offset=offset)["L_att"] == count


def test_periodic_refuses_counts_no_period_marks():
    with pytest.raises(ValueError, match="4 of 5"):
        periodic(5, 4)


def _nemotron(tmp_path, **changes) -> Path:
    data = json.loads((CONFIGS / "nemotron-h-8b-base-8k.json").read_text()) | changes
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    return path


def test_nemotron_h_blocks_from_the_pattern_or_the_list(capsys, tmp_path):
    """hybrid_override_pattern (M, *, -, E) and layers_block_type (new or legacy names) read
    alike; experts (E) are a fourth kind of block."""
    read = _count(capsys, "--config", str(CONFIGS / "nemotron-h-8b-base-8k.json"))["config"]["read"]
    assert (read["L"], read["L_att"], read["L_mlp"], read["L_moe"]) == (52, 4, 24, 0)
    blocks = ["mamba", "attention", "mlp", "moe", "linear_attention", "full_attention"]
    path = _nemotron(tmp_path, hybrid_override_pattern=None, num_hidden_layers=None,
                     layers_block_type=blocks)
    read = _count(capsys, "--config", str(path))["config"]["read"]
    assert (read["L"], read["L_att"], read["L_mlp"], read["L_moe"]) == (6, 2, 1, 1)
    path = _nemotron(tmp_path, hybrid_override_pattern="ME*-E", num_hidden_layers=5,
                     n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=8,
                     moe_shared_expert_intermediate_size=16)
    data = _count(capsys, "--config", str(path))
    assert data["config"]["read"]["L_moe"] == 2 and data["active"] < data["total"]


def test_nemotron_h_refuses_a_pattern_of_the_wrong_length(capsys, tmp_path):
    path = _nemotron(tmp_path, hybrid_override_pattern="M*-")
    assert main(["count", "--config", str(path)]) == 2
    assert "layers_block_type" in capsys.readouterr().err


def test_nemotron_h_head_is_never_tied(capsys, tmp_path):
    """NemotronHForCausalLM ties no weights: tie_word_embeddings true changes no count."""
    path = _nemotron(tmp_path, tie_word_embeddings=True)
    assert _count(capsys, "--config", str(path))["total"] == 8_100_852_736


def test_nemotron_h_latent_moe_is_read_and_counted(capsys, tmp_path):
    """moe_latent_size set (Nemotron 3 Super's latent MoE): the routed experts work on d_lat,
    fc1/fc2_latent_proj project d_e → d_lat → d_e; null, the experts work on d_e."""
    experts = dict(hybrid_override_pattern="ME*-E", num_hidden_layers=5, n_routed_experts=4,
                   num_experts_per_tok=2, moe_intermediate_size=8,
                   moe_shared_expert_intermediate_size=16)
    plain = _count(capsys, "--config", str(_nemotron(tmp_path, **experts)))
    assert plain["config"]["read"]["moe_lat"] == 0 and "d_lat" not in plain["config"]["read"]
    latent = _count(capsys, "--config",
                    str(_nemotron(tmp_path, **experts, moe_latent_size=16)))
    assert (latent["config"]["read"]["moe_lat"], latent["config"]["read"]["d_lat"]) == (1, 16)
    # per expert block: 4 experts' up and down on 16 in place of 4096, and the two projections
    per_block = 4 * 8 * 2 * (16 - 4096) + 2 * 4096 * 16
    assert latent["total"] - plain["total"] == 2 * per_block == -260_096
    assert latent["active"] - plain["active"] == 2 * (2 * 8 * 2 * (16 - 4096) + 2 * 4096 * 16)


@pytest.mark.slow
def test_jamba_stack_off_the_proof_lattice_is_transformers_build():
    """Jamba's proof samples L a multiple of L_att, L_att of L_moe (a sub-lattice, dense in the
    layer counts); a stack JambaConfig writes off it (2 attention and 3 expert blocks of 5)
    is its build too."""
    from paramcount.analyze.verify import verify

    for count in (2, 3):  # each writable as a period and offset of JambaConfig's
        period, offset = periodic(5, count)
        assert sum(1 for i in range(5) if i % period == offset) == count
    hp = {**registry.get("jamba").preset("tiny").hparams, "L": 5, "L_att": 2, "L_moe": 3}
    assert verify("jamba", hp, framework="transformers").ok


def test_granite_4_h_small_9b_active_and_micro_without_experts(capsys):
    """H-Small: 10 of 72 experts per token, 8.8B active (the card's "9B active"); Micro's
    num_local_experts 0 reads as moe = 0 (its num_experts_per_tok 0 unread)."""
    data = _count(capsys, "--config", str(CONFIGS / "granite-4.0-h-small.json"))
    assert data["config"]["read"]["L_att"] == 4 and data["active"] == 8_803_121_664
    read = _count(capsys, "--config", str(CONFIGS / "granite-4.0-micro.json"))["config"]["read"]
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
    assert _count(capsys, "--config", str(path))["config"]["read"]["L_att"] == 4


def test_falcon_h1_inner_width_is_heads_times_head_width(capsys, tmp_path):
    """mamba_d_ssm is H_ssm·d_ssm: read through the heads (a non-multiple refused); null, it is
    mamba_expand·hidden_size; the optional gated norm adds H_ssm·d_ssm per block."""
    data = json.loads((CONFIGS / "falcon-h1-0.5b-base.json").read_text())
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data | {"mamba_d_ssm": None, "mamba_n_heads": 32}))
    assert _count(capsys, "--config", str(path))["config"]["read"]["d_ssm"] == 64
    path.write_text(json.dumps(data | {"mamba_d_ssm": 1537}))
    assert main(["count", "--config", str(path)]) == 2
    assert "mamba_d_ssm = 1537" in capsys.readouterr().err
    path.write_text(json.dumps(data | {"mamba_rms_norm": True}))
    assert _count(capsys, "--config", str(path))["total"] == 521_411_104 + 36 * 1536


def test_zamba2_shared_blocks_count_once_adapters_per_layer():
    """Zamba2-2.7B: 9 hybrid layers reuse 2 shared blocks, counted twice (not 9 times); each
    hybrid layer has its own linear and MLP adapter."""
    arch, values = _values("zamba2", "zamba2_2_7b")
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


HYBRIDS = ["jamba", "nemotron_h", "granitemoehybrid", "falcon_h1", "zamba2"]


@pytest.mark.parametrize("arch_id", HYBRIDS)
def test_checked_by_transformers_only(arch_id):
    assert registry.get(arch_id).checked_by == ("transformers",)


@pytest.mark.slow
@pytest.mark.parametrize("arch_id", HYBRIDS)
def test_formula_with_deltas_is_proven_against_transformers(arch_id):
    from paramcount.analyze.prove import transformers as hf_prove

    result = hf_prove.prove(registry.get(arch_id))
    assert result.status == "proven", result
