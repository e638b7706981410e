"""The state-space hybrids, hand-written (issue 20 §4): Jamba, with its experts. Their published
configs read as what transformers builds, the layer patterns come from the configs' own fields,
the cards' figures come out of the formulas, and the formula equals transformers' build (slow:
proven for all hyperparameters)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paramcount import registry
from paramcount.cli import main
from paramcount.components.stacks import PERIODIC_ATTENTION, periodic
from paramcount.frameworks import for_framework

CONFIGS = Path(__file__).with_name("configs")

# file → (architecture read, transformers' count of the class the file names): the published
# config.json values (hand-written from the released checkpoints' configs)
PUBLISHED = {
    # ai21labs/Jamba-v0.1 and AI21-Jamba-1.5-Mini config.json: "52B total, 12B active" on the
    # cards (51.6B, 12.1B)
    "jamba-v0.1.json": ("jamba", 51_570_323_328),
    "ai21-jamba-1.5-mini.json": ("jamba", 51_570_323_328),
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


HYBRIDS = ["jamba"]


@pytest.mark.parametrize("arch_id", HYBRIDS)
def test_checked_by_transformers_only(arch_id):
    assert registry.get(arch_id).checked_by == ("transformers",)


@pytest.mark.slow
@pytest.mark.parametrize("arch_id", HYBRIDS)
def test_formula_with_deltas_is_proven_against_transformers(arch_id):
    from paramcount.prove import transformers as hf_prove

    result = hf_prove.prove(registry.get(arch_id))
    assert result.status == "proven", result
