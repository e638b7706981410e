"""ALBERT: the shared block counted once, and what the factorisation saves."""

from __future__ import annotations

from tests._shared import count


def test_albert_shared_block_counts_once():
    hp = dict(v=30000, n=512, d_emb=128, d_e=768, M=12, d_f=3072)
    one = count("albert", **hp, L=12)
    assert count("albert", **hp, L=24) == one  # depth without new blocks is free
    block = 4 * (768 * 768 + 768) + 2 * 768 * 3072 + 3072 + 768 + 4 * 768
    assert count("albert", **hp, L=12, L_g=2) == one + block
    assert count("albert", **hp, L=12, L_g=3, L_r=2) == one + 5 * block
    # Unshared, the same shape would be ALBERT's "not-shared" 12-block model (Lan et al. table 4).
    assert count("albert", **hp, L=12, L_g=12) == one + 11 * block


def test_albert_factorisation_saves_what_the_paper_says():
    # Factorised: V·E + E·H (+ biases, norms) instead of V·H.
    hp = dict(n=512, d_e=4096, M=64, d_f=16384, L=12, v=30000)
    small = count("albert", **hp, d_emb=128)
    wide = count("albert", **hp, d_emb=4096)
    saved = wide - small
    tables = (30000 + 512 + 2) * (4096 - 128) + 2 * (4096 - 128)  # token/position/segment, norm
    projection = (4096 - 128) * 4096
    assert saved == tables + projection
