"""OPT: GPT-2's formula."""

from __future__ import annotations

import sympy
from tests._shared import total_with_fixed


def test_opt_and_gpt2_have_the_same_formula():
    assert sympy.expand(total_with_fixed("opt") - total_with_fixed("gpt2")) == 0
