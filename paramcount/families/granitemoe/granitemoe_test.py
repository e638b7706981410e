"""Granite 3 MoE (issue 20 §5): the cards' active figures."""

from __future__ import annotations

import pytest
from tests._shared import active_and_table


@pytest.mark.parametrize(("preset", "active", "activated"), [
    ("granite_3_0_1b_a400m", 428_658_688, 378_323_968),
    ("granite_3_0_3b_a800m", 882_874_368, 807_372_288),
])
def test_granitemoe_active_figures_leave_out_the_tied_table(preset, active, activated):
    """Granite 3 MoE's "400M" and "800M" active: 8 experts per block, the (tied) token table
    left out."""
    got, table = active_and_table("granitemoe", preset)
    assert got == active and got - table == activated
