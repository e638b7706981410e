"""DeBERTa-v3: the count ignores the sequence length."""

from __future__ import annotations

from tests._shared import count


def test_deberta_count_ignores_sequence_length():
    hp = dict(v=128100, d_e=768, M=12, d_f=3072, L=12)
    assert count("deberta_v3", **hp, n=512) == count("deberta_v3", **hp, n=4096)
    assert count("deberta_v3", **hp, k_rel=512) - count("deberta_v3", **hp) == 512 * 768
