"""Jamba (a state-space hybrid with experts, issue 20 §4): its active count, its layer pattern
(a period and an offset, written by the stacks' ``periodic``) and a stack off the proof's lattice."""

from __future__ import annotations

import json

import pytest
from tests._shared import CONFIGS
from tests._shared import built_values
from tests._shared import count_json

from paramcount.cli.main import main
from paramcount.model import registry
from paramcount.model.components.stacks import PERIODIC_ATTENTION
from paramcount.model.components.stacks import periodic


def test_jamba_12b_active_and_its_layer_counts(capsys):
    """Jamba-v0.1: 4 attention blocks of 32 (period 8, offset 4), 16 expert blocks (period 2,
    offset 1); 12.1B active per token (2 of the 16 experts), the card's "12B active"."""
    data = count_json(capsys, "--config", str(CONFIGS / "jamba-v0.1.json"))
    read = data["config"]["read"]
    assert (read["L_att"], read["L_moe"]) == (4, 16)
    arch, values = built_values("jamba", "jamba_v0_1", "transformers")
    assert int(arch.formula.active_total().subs(values)) == 12_110_311_296


def test_jamba_layer_pattern_reads_offset_zero(capsys, tmp_path):
    """An offset of 0 is the first layer, not a missing value: period 4, offset 0 marks layers
    0, 4, ... of 32 (8 attention blocks); a negative offset is refused in one line."""
    data = json.loads((CONFIGS / "jamba-v0.1.json").read_text())
    data |= {"attn_layer_period": 4, "attn_layer_offset": 0}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    assert count_json(capsys, "--config", str(path))["config"]["read"]["L_att"] == 8
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
