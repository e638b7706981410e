"""ELECTRA: the projection only when the widths differ, and the base discriminator as BERT-base."""

from __future__ import annotations

from tests._shared import count

from paramcount.model import registry


def test_electra_projection_only_when_widths_differ():
    hp = dict(v=30522, n=512, d_e=256, M=4, d_f=1024, L=12)
    arch = registry.get("electra")
    assert arch.resolve({**hp, "d_emb": 128})["eta"] == 1
    assert arch.resolve({**hp, "d_emb": 256})["eta"] == 0
    with_proj = count("electra", **hp, d_emb=128)
    # Widening the tables from 128 to 256 adds (v+n+s+2)·128 and removes the 128×256+256 layer.
    assert count("electra", **hp, d_emb=256) == with_proj + (30522 + 512 + 2 + 2) * 128 - (
        128 * 256 + 256)


def test_electra_base_discriminator_is_bert_base():
    hp = dict(v=30522, n=512, d_e=768, M=12, d_f=3072, L=12)
    assert count("electra", **hp, d_emb=768) == count("bert", **hp)
