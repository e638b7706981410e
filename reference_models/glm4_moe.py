"""GLM-4.5: no Keras build exists; the transformers model's weights, seen as a Keras model's
(``reference_models.hf.WeightsView``), so prove's oracle takes it as it is."""

from __future__ import annotations


def glm4_moe(hp: dict[str, int]):
    from reference_models import hf

    return hf.view("glm4_moe", hp)
