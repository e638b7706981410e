"""MiniMax-M2 (issue 20 §5): the card's activated figure and the router's frozen bias."""

from __future__ import annotations

from tests._shared import active_and_table
from tests._shared import built_values


def test_minimax_m2_10b_activated_leaves_out_the_token_table_and_head():
    """MiniMax-M2's "10B activated": 8 of the 256 experts in each of the 62 blocks, attention
    and norms once; 11.0B with the token table and the (untied) LM head, 9.8B without them. The
    router's score-correction bias is a buffer: one per expert per block, not trained."""
    active, table = active_and_table("minimax_m2", "minimax_m2")
    assert active == 11_030_537_216 and active - 2 * table == 9_801_344_000
    arch, values = built_values("minimax_m2", "minimax_m2", "transformers")
    assert int(arch.formula.trainable_total(False).subs(values)) == 256 * 62
