"""GPT-Neo (issue 20 §5): a null intermediate size reads as 4·d_e."""

from __future__ import annotations

from tests._shared import CONFIGS
from tests._shared import count_json


def test_gpt_neo_reads_a_null_intermediate_size_as_4_d_e(capsys):
    data = count_json(capsys, "--config", str(CONFIGS / "gpt-neo-125m.json"))
    assert data["config"]["read"]["d_f"] == 4 * 768
