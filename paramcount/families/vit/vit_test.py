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


def test_vit_costs_are_of_b_images_whatever_t():
    # B images of 32 × 32 × 3 at P = 8: 16 patches and the class token, 17 positions; the
    # forward FLOPs do not grow with T, and an image encoder caches nothing
    from paramcount.analyze import costs
    from paramcount.model import registry

    arch = registry.get("vit")
    hp = arch.resolve(dict(H=32, P=8, d_e=32, M=4, d_f=64, L=2))
    b, n, patches = 2, 17, 16
    patch = 2 * b * patches * 8 * 8 * 3 * 32
    block = 2 * b * n * (4 * 32 * 32 + 2 * 32 * 64) + 2 * b * n * n * (32 + 32)
    pooler = 2 * b * 1 * 32 * 32  # on the class token only
    for t in (5, 37):
        assert costs.value(arch, "flops", hp, t, b) == patch + 2 * block + pooler == 1_659_392
        assert costs.value(arch, "kv", hp, t, b) == 0
