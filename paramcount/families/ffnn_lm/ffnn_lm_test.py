"""The feed-forward language model: Bengio et al.'s closed form."""

from __future__ import annotations

from tests._shared import count


def test_ffnn_lm_is_bengios_closed_form():
    v, n, e, h = 97, 4, 6, 11
    assert count("ffnn_lm", v=v, n=n, d_e=e, d_h=h) == v * e + n * e * h + h + h * v + v
    assert count("ffnn_lm", v=v, n=n, d_e=e, d_h=h, direct=1) - count(
        "ffnn_lm", v=v, n=n, d_e=e, d_h=h) == n * e * v
    assert count("ffnn_lm", v=v, n=n, d_e=e, d_h=h, L=3) - count(
        "ffnn_lm", v=v, n=n, d_e=e, d_h=h) == 2 * (h * h + h)
