"""Qwen3-Next (hand-written, issue 20): Qwen 3.5 MoE's formula, and its active count."""

from __future__ import annotations

from tests._shared import built_values

from paramcount.model import registry


def test_qwen3_next_shares_qwen3_5_moe_formula():
    """The same tree as Qwen 3.5 MoE (its components), so the same count at the same values;
    3.87B active with the token table and head, 3.25B without either ("3B activated")."""
    hp = registry.get("qwen3_next").preset("qwen3_next_80b_a3b").hparams
    nxt, moe = registry.get("qwen3_next"), registry.get("qwen3_5_moe")
    assert nxt.count(nxt.resolve(hp)) == moe.count(moe.resolve(hp)) == 79_674_391_296
    arch, values = built_values("qwen3_next", "qwen3_next_80b_a3b", "transformers")
    active = int(arch.formula.active_total().subs(values))
    table = int(arch.formula.find("embeddings.token").total().subs(values))
    assert active == 3_874_929_408 and active - 2 * table == 3_252_599_552
