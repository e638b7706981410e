"""FNet: BERT without attention, plus a projection."""

from __future__ import annotations

from tests._shared import count

from paramcount.model import registry


def test_f_net_is_bert_without_attention_plus_a_projection():
    hp = dict(v=32000, n=512, d_e=768, d_f=3072, L=12)
    d = 768
    bert = count("bert", **hp, M=12, s=4)
    attention = 4 * (d * d + d)
    assert count("f_net", **hp) == bert - 12 * attention + (d * d + d)
    mixing = registry.get("f_net").formula.find("blocks.mixing")
    assert mixing.total() == 0 and "Fourier" in mixing.note
