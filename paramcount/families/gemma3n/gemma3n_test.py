"""Gemma 3n's costs (issue 31): the KV-shared blocks cache nothing, the block's own AltUp
products are claimed apart from its attention's scores."""

from __future__ import annotations

from paramcount.analyze import costs
from paramcount.model import registry


def test_only_the_computing_blocks_cache_and_the_global_ones_keep_all():
    """E4B's text decoder: 35 blocks, the last 15 KV-shared; of the 20 computing ones every fifth
    is global (4, all T kept), the 16 others keep w − 1 in a window of w."""
    arch = registry.get("gemma3n")
    hp = {**arch.resolve(dict(arch.preset("e4b_text").hparams)), "w": 512}
    per_position = 2 * hp["M_kv"] * hp["d_k"]  # keys and values
    assert costs.value(arch, "kv", hp, 600, 2, {"sliding_window": 512}) == \
        2 * (16 * 511 + 4 * 600) * per_position
    assert costs.value(arch, "kv", hp, 100, 1, {"sliding_window": 512}) == 20 * 100 * per_position


def test_the_blocks_own_products_are_not_its_attentions_scores():
    arch = registry.get("gemma3n")
    hp = arch.resolve(dict(arch.preset("tiny").hparams))
    tree = costs.quantity_arch(arch, "flops", hp).formula
    owners = {p: [lf.path for lf in tree.leaves() if lf.claims(p)]
              for p in ("model/layers/3/scores", "model/layers/3/self_attn/scores")}
    assert owners == {"model/layers/3/scores": ["gemma3n.blocks.altup_mixing"],
                      "model/layers/3/self_attn/scores": ["gemma3n.blocks.attention.scores"]}
