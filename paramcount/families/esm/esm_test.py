"""ESM: what each option changes."""

from __future__ import annotations

from tests._shared import count

from paramcount.model.keras_hub_meta import published_params


def test_esm_options_change_the_count_by_their_term():
    hp = dict(v=33, d_e=320, M=20, d_f=1280, L=6)
    rotary = count("esm", **hp)
    assert rotary == published_params("esm2_t6_8M")
    assert count("esm", **hp, abs_pos=1, n=1026) == rotary + 1026 * 320
    assert count("esm", **hp, emb_norm=1) == rotary + 2 * 320
    biases = 6 * (4 * 320 + 1280 + 320)  # q, k, v, o and the two feed-forward layers
    assert count("esm", **hp, zeta=0) == rotary - biases
