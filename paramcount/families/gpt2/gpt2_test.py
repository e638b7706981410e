"""GPT-2 and GPT-3: the GPT-3 paper's parameter column, GPT-3 175B's closed form, and why the
head count does not change the count."""

from __future__ import annotations

import pytest
from tests._shared import total_with_fixed

from paramcount.core.symbols import M
from paramcount.model import registry


def _count(arch_id: str, preset: str) -> int:
    arch = registry.get(arch_id)
    return arch.count(arch.resolve(arch.preset(preset).hparams))


# Brown et al. 2020, table 2.1, n_params column.
GPT3_TABLE = {
    "gpt3_small": 125e6, "gpt3_medium": 350e6, "gpt3_large": 760e6, "gpt3_xl": 1.3e9,
    "gpt3_2.7b": 2.7e9, "gpt3_6.7b": 6.7e9, "gpt3_13b": 13e9, "gpt3_175b": 175e9,
}


@pytest.mark.parametrize("preset", sorted(GPT3_TABLE))
def test_gpt3_presets_match_the_papers_parameter_column(preset):
    # The table rounds; the hyperparameters are right when the exact count is within 2 %.
    count = _count("gpt2", preset)
    assert abs(count - GPT3_TABLE[preset]) / GPT3_TABLE[preset] < 0.02


def test_gpt3_175b_exact_count_and_closed_form():
    # 12·L·d² + 13·L·d + (v + n)·d + 2·d: the GPT-2 block's closed form.
    hp = dict(v=50257, n=2048, d=12288, L=96)
    closed = (12 * hp["L"] * hp["d"] ** 2 + 13 * hp["L"] * hp["d"]
              + (hp["v"] + hp["n"]) * hp["d"] + 2 * hp["d"])
    assert _count("gpt2", "gpt3_175b") == closed == 174_604_259_328


def test_gpt2_block_count_does_not_depend_on_the_head_count():
    # Why GPT-3 XL's inconsistent head count (24 heads of 128 in a 2048-wide model) cannot
    # change its figure: with d_k = d_e/M, M cancels.
    assert M not in total_with_fixed("gpt2").free_symbols
    # where M does not divide d_e, the floored heads are narrower: then M counts
    gpt2 = registry.get("gpt2")
    hp = dict(v=5000, n=128, d_e=256, d_f=128, L=2)
    assert gpt2.count(gpt2.resolve({**hp, "M": 4})) != gpt2.count(gpt2.resolve({**hp, "M": 3}))
