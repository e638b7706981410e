"""ViT: ViT-B/16 at 224, and its biases switched apart."""

from __future__ import annotations

import pytest
from tests._shared import count

from paramcount.core.errors import ConstraintError


def test_vit_base_16_at_224():
    n = count("vit", H=224, P=16, d_e=768, M=12, d_f=3072, L=12)
    patches = (224 // 16) ** 2
    block = 4 * (768 * 768 + 768) + 2 * 2 * 768 + 768 * 3072 + 3072 + 3072 * 768 + 768
    assert n == 16 * 16 * 3 * 768 + 768 + 768 + (patches + 1) * 768 + 12 * block + 2 * 768
    assert n == 85_798_656
    assert count("vit", H=224, W=160, P=16, C=1, d_e=64, M=4, d_f=32, L=1) - count(
        "vit", H=224, W=160, P=16, C=1, d_e=64, M=4, d_f=32, L=1, cls=0) == 2 * 64
    with pytest.raises(ConstraintError, match="P"):
        count("vit", H=225, P=16, d_e=768, M=12, d_f=3072, L=12)


def test_vit_mlp_and_patch_biases_switch_apart():
    # KerasHub's use_mlp_bias (b_ffn) and use_patch_bias (b_patch)
    hp = dict(H=224, P=16, d_e=768, M=12, d_f=3072, L=12)
    assert count("vit", **hp) - count("vit", **hp, b_ffn=0) == 12 * (3072 + 768)
    assert count("vit", **hp) - count("vit", **hp, b_patch=0) == 768
