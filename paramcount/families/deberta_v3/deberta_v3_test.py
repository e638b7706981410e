"""DeBERTa-v3: the count ignores the sequence length."""

from __future__ import annotations

from tests._shared import count


def test_deberta_count_ignores_sequence_length():
    hp = dict(v=128100, d_e=768, M=12, d_f=3072, L=12)
    assert count("deberta_v3", **hp, n=512) == count("deberta_v3", **hp, n=4096)
    assert count("deberta_v3", **hp, k_rel=512) - count("deberta_v3", **hp) == 512 * 768


def test_deberta_v3_forward_flops_count_the_relative_rows():
    # tiny: d_e = 32, d_f = 64, L = 2, 2·k_rel = 16 relative rows; B = 2 sequences of T = 5
    from paramcount.analyze import costs
    from paramcount.model import registry

    arch = registry.get("deberta_v3")
    hp = arch.resolve(dict(v=100, d_e=32, M=4, d_f=64, L=2, k_rel=8, n=16))
    b, t, d, rows = 2, 5, 32, 16
    query_key = 2 * (2 * b * t * d * d + 2 * rows * d * d)  # the table projected once, not per B
    value_output = 2 * (2 * b * t * d * d)
    ffn = 2 * (2 * b * t * d * 64)
    scores = 2 * b * t * t * 2 * d + 2 * 2 * b * t * d * rows  # content; c2p and p2c
    assert costs.value(arch, "flops", hp, t, b) == 2 * (query_key + value_output + ffn + scores)
    assert costs.value(arch, "kv", hp, t, b) == 0
