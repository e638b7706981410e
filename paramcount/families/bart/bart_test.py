"""BART: KerasHub's CNN figure, and two paper stacks sharing one table."""

from __future__ import annotations

from tests._shared import count

from paramcount.model import registry
from paramcount.model.keras_hub_meta import published_params


def test_bart_large_cnn_figure_is_bart_large_s():
    hp = registry.get("bart").preset("bart_large_en_cnn").hparams
    assert published_params("bart_large_en_cnn") == published_params("bart_large_en")
    assert published_params("bart_large_en_cnn") - count("bart", **hp) == 1024


def test_bart_is_two_paper_stacks_sharing_one_table():
    hp = dict(v=50265, n=1024, d_e=768, M=12, d_f=3072, L=6)
    d, f = 768, 3072
    enc_block = 4 * (d * d + d) + 2 * d * f + f + d + 4 * d
    dec_block = enc_block + 4 * (d * d + d) + 2 * d
    embeds = 50265 * d + 2 * (1024 * d + 2 * d)
    assert count("bart", **hp) == embeds + 6 * enc_block + 6 * dec_block == 139_417_344
