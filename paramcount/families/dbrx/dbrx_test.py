"""DBRX (issue 20 §5): the card's active figure."""

from __future__ import annotations

from tests._shared import active_and_table


def test_dbrx_36b_active():
    """DBRX's "36B active on any input": 4 of the 16 experts in each of the 40 blocks, with
    the token table and LM head (36.5B)."""
    active, table = active_and_table("dbrx", "dbrx_base")
    assert active == 36_469_708_800 and table == 100_352 * 6144
