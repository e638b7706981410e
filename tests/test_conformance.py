"""Formula against Keras for every registered architecture and every hyperparameter set it has
(published presets at full size, and its example sets): a new architecture is tested the moment
it is registered."""

from __future__ import annotations

import pytest
import sympy

from paramcount.model import registry
from tests._shared import verified

# Every set of every architecture; the default run checks the first of each here (the rest with
# --runslow), since the golden report (tests/test_report.py) verifies every set in the default
# run too and fails on any mismatch: the sweep here would build each model a second time.
CASES = [pytest.param(a.id, hs.name, id=f"{a.id}-{hs.name}",
                      marks=() if i == 0 else (pytest.mark.slow,))
         for a in registry.architectures().values() for i, hs in enumerate(a.hparam_sets())]


@pytest.mark.parametrize(("arch_id", "preset"), CASES)
def test_formula_equals_keras(arch_id, preset):
    result = verified(arch_id, preset)
    assert result.ok, "\n".join(result.mismatches())
    assert result.formula == result.reference
    if result.keras_hub_params is not None:
        # KerasHub's own published figure: a third, independent count. Where it is known to
        # disagree with KerasHub's own build, the preset says why, and the finding must hold.
        built = result.reference + result.reference_nontrainable
        if registry.get(arch_id).preset(preset).keras_hub_differs:
            assert result.keras_hub_params != built
        else:
            assert result.keras_hub_params == built


@pytest.mark.parametrize("arch_id", sorted(registry.architectures()))
def test_components_sum_to_total(arch_id):
    arch = registry.get(arch_id)
    leaves = sympy.Add(*(lf.expr for lf in arch.formula.leaves() if lf.term.trainable))
    assert sympy.expand(leaves - arch.total()) == 0
    for hs in arch.hparam_sets():
        values = arch.values(hs.hparams)
        flat = []
        stack = [arch.formula.breakdown(values)]
        while stack:
            for val in stack.pop().values():
                (stack.append if isinstance(val, dict) else flat.append)(val)
        assert sum(flat) == arch.count(hs.hparams) + arch.count_nontrainable(hs.hparams)


@pytest.mark.parametrize("arch_id", sorted(registry.architectures()))
def test_every_architecture_has_hparam_sets(arch_id):
    arch = registry.get(arch_id)
    assert arch.hparam_sets(), f"{arch_id} has no preset and no example to verify"
    for hs in arch.hparam_sets():
        assert arch.resolve(hs.hparams) == hs.hparams  # resolved sets are fixed points
