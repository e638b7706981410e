"""The table of :mod:`paramcount.analyze.hf_types`, generated from the installed transformers
(``python -m paramcount.analyze.hf_types_generate`` prints its block; imports transformers)."""

from __future__ import annotations

from typing import Any

__all__ = ["generate", "table"]

# PretrainedConfig's own keys, no model's shape (never filled in)
_GENERIC = frozenset({
    "architectures", "dtype", "torch_dtype", "problem_type", "id2label", "label2id",
    "output_hidden_states", "output_attentions", "return_dict", "chunk_size_feed_forward",
    "is_encoder_decoder", "use_cache", "transformers_version", "_name_or_path", "model_type",
    "tie_encoder_decoder", "is_decoder", "add_cross_attention", "torchscript",
})


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
        defaults = config_class().to_dict()
        out[model_type] = (cls, {k: v for k, v in sorted(defaults.items())
                                 if k not in _GENERIC and not k.endswith("_token_id")
                                 and _exact(v)})
    return out


def _exact(value) -> bool:
    """A default kept: an integer, flag, string, None, or a list of them (a float or a mapping
    of them, a dropout or the rotary parameters, sizes no weight)."""
    if isinstance(value, list):
        return all(_exact(v) for v in value)
    return value is None or type(value) in (bool, int, str)


def table() -> dict[str, tuple[str, dict[str, Any]]]:
    """:func:`generate` for the registered families' tables."""
    from paramcount.analyze import configs

    types, _ = configs.supported()
    covered = {c for t in configs.tables() if t.model_type and t.hf_classes for c in t.hf_classes}
    return generate(set(types), covered)


if __name__ == "__main__":  # print the generated block
    import pprint

    print(pprint.pformat(table(), width=99, sort_dicts=True))
