"""DeepSeek-V2 / V3: no Keras build exists; the transformers model's weights, seen as a Keras
model's (``reference_models.hf.WeightsView``), so prove's oracle takes it as it is."""

from __future__ import annotations


def deepseek_v2(hp: dict[str, int]):
    from reference_models import hf

    return hf.view("deepseek_v2", hp)


def deepseek_v3(hp: dict[str, int]):
    from reference_models import hf

    return hf.view("deepseek_v3", hp)


def deepseek_v32(hp: dict[str, int]):
    from reference_models import hf

    return hf.view("deepseek_v32", hp)
