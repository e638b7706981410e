"""Cohere 2 (issue 20 §5): Command R's block without the query-key norm."""

from __future__ import annotations

from paramcount.model import registry


def test_cohere2_is_cohere_without_qk_norm():
    """Command R7B's weights are Command R's block at qk_norm = 0: the same count."""
    hp = registry.get("cohere2").preset("command_r7b_12_2024").hparams
    c1, c2 = registry.get("cohere"), registry.get("cohere2")
    assert c2.count(c2.resolve(hp)) == c1.count(c1.resolve(dict(hp, qk_norm=0))) == 8_028_033_024
