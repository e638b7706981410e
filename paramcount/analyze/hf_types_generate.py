"""The table of :mod:`paramcount.analyze.hf_types`, generated from the installed transformers
(``python -m paramcount.analyze.hf_types_generate`` prints its block; imports transformers)."""

from __future__ import annotations

from typing import Any

from paramcount.analyze.hf_defaults_generate import declared

__all__ = ["generate", "table"]



def generate(read_types: set[str], covered: set[str]) -> dict[str, tuple[str, dict[str, Any]]]:
    """(Imports transformers.) The table: every model type no table reads (``read_types``)
    whose causal-LM class (else base-model class) in transformers' auto mappings is one a
    family covers (``covered``), and its config class is no composite."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING, CONFIG_MAPPING_NAMES
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_MAPPING_NAMES,
    )

    out = {}
    for model_type in sorted(CONFIG_MAPPING_NAMES):
        if model_type in read_types:
            continue
        cls = MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.get(model_type) or MODEL_MAPPING_NAMES.get(
            model_type)
        if not isinstance(cls, str) or cls not in covered:
            continue
        config_class = CONFIG_MAPPING[model_type]
        if getattr(config_class, "sub_configs", None):
            continue  # a composite: its class reads a sub-config
        # declared, not derived (ExaoneConfig's head_dim is None until the width and heads
        # give it: a file of another width than the defaults' has its own)
        out[model_type] = (cls, declared(config_class))
    return out


def table() -> dict[str, tuple[str, dict[str, Any]]]:
    """:func:`generate` for the registered families' tables."""
    from paramcount.analyze import configs

    types, _ = configs.supported()
    covered = {c for t in configs.tables() if t.model_type and t.hf_classes for c in t.hf_classes}
    return generate(set(types), covered)


if __name__ == "__main__":  # print the generated block
    import pprint

    print(pprint.pformat(table(), width=99, sort_dicts=True))
