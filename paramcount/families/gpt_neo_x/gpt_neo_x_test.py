"""GPT-NeoX: GPT-2 without learned positions."""

from __future__ import annotations

import sympy
from tests._shared import total_with_fixed

from paramcount.core.symbols import d_e
from paramcount.core.symbols import n


def test_gpt_neo_x_is_gpt2_without_learned_positions():
    # Fused QKV and the parallel block change no count: only the n·d_e position table goes.
    diff = sympy.expand(total_with_fixed("gpt2") - total_with_fixed("gpt_neo_x"))
    assert diff == n * d_e
