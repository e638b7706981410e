"""OLMo 3 (issue 20 §5): OLMo 2's formula."""

from __future__ import annotations

from paramcount.model import registry


def test_olmo3_is_olmo2s_formula():
    """OLMo 3 changes which blocks attend through a window, not a weight: OLMo 2's count at
    the same values."""
    hp = registry.get("olmo3").preset("olmo3_1025_7b").hparams
    o2, o3 = registry.get("olmo2"), registry.get("olmo3")
    assert o3.count(o3.resolve(hp)) == o2.count(o2.resolve(hp)) == 7_298_011_136
