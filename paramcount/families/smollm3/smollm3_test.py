"""SmolLM3: its rotary frequencies, counted apart as non-trainable."""

from __future__ import annotations

from paramcount.model import registry


def test_smollm3_rotary_frequencies_are_counted_apart_as_non_trainable():
    arch = registry.get("smollm3")
    hp = arch.resolve(arch.preset("smollm3_3b_en").hparams)
    frozen = arch.formula.trainable_total(False).xreplace(arch.values(hp))
    assert frozen == hp["L"] * hp["d_k"] // 2 == 2304
