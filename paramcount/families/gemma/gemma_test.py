"""Gemma 2's post-norms, and how its options switch them."""

from __future__ import annotations

from paramcount.model import registry


def test_gemma2_post_norms_add_two_vectors_per_block():
    arch = registry.get("gemma")
    hp = arch.resolve(arch.preset("gemma2_2b_en").hparams)
    without = arch.count({**hp, "post_attn_norm": 0, "post_ffw_norm": 0})
    assert arch.count(hp) - without == 2 * hp["L"] * hp["d_e"]
    # KerasHub's use_post_attention_norm and use_post_ffw_norm switch them apart
    attn_only = arch.count({**hp, "post_ffw_norm": 0})
    assert attn_only - without == hp["L"] * hp["d_e"]
    # post_norm is the presets' shorthand: it sets both unless either is given
    assert arch.resolve({**arch.preset("gemma2_2b_en").hparams, "post_norm": 0})["post_ffw_norm"] == 0
