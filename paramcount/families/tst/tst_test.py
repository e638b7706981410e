"""TST: batch norm adds only non-trainable statistics."""

from __future__ import annotations

from tests._shared import count

from paramcount.model import registry


def test_tst_batch_norm_adds_only_non_trainable_statistics():
    arch = registry.get("tst")
    hp = dict(d_x=5, n=12, d_e=16, M=4, d_f=32, L=3)
    with_bn, with_ln = arch.resolve(hp), arch.resolve({**hp, "bn": 0})
    trained = arch.formula.trainable_total(True)
    frozen = arch.formula.trainable_total(False)
    assert trained.subs(arch.values(with_bn)) == trained.subs(arch.values(with_ln))
    assert frozen.subs(arch.values(with_bn)) == 3 * 2 * 2 * 16
    assert frozen.subs(arch.values(with_ln)) == 0
    head = count("tst", **hp, d_y=7) - count("tst", **hp, pretrain=1)
    assert head == (12 * 16 * 7 + 7) - (16 * 5 + 5)
