"""The data of :mod:`paramcount.analyze.hf_defaults`, generated from the installed transformers
(``python -m paramcount.analyze.hf_defaults_generate`` writes ``hf_defaults.json``; imports
transformers)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

__all__ = ["GENERIC", "declared", "generate", "write"]

# PretrainedConfig's own keys, no model's shape (never filled in)
GENERIC = frozenset({
    "architectures", "dtype", "torch_dtype", "problem_type", "id2label", "label2id",
    "output_hidden_states", "output_attentions", "return_dict", "chunk_size_feed_forward",
    "is_encoder_decoder", "use_cache", "transformers_version", "_name_or_path", "model_type",
    "tie_encoder_decoder", "is_decoder", "add_cross_attention", "torchscript",
})


def declared(config_class) -> dict[str, Any]:
    """The defaults ``config_class`` *declares* (its dataclass fields' own values, before its
    ``__post_init__`` derives anything from the others: GemmaConfig's head_dim is 256 whatever
    the width, LlamaConfig's None until the width and heads give it), each an integer, flag,
    string, None or a list of them; the generic keys and token ids left out."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(config_class):
        if f.name in GENERIC or f.name.startswith("_") or f.name.endswith("_token_id"):
            continue
        if f.default is not dataclasses.MISSING:
            value = f.default
        elif f.default_factory is not dataclasses.MISSING:
            value = f.default_factory()
        else:
            continue
        if _exact(value):
            out[f.name] = value
    return dict(sorted(out.items()))


def _labels(config_class) -> int | None:
    """The labels a config of ``config_class`` without num_labels or id2label has, where not
    PretrainedConfig's 2 (BartConfig's 3); None where 2 or where the defaults do not build."""
    try:
        labels = config_class().num_labels
    except Exception:  # a class whose defaults its own validator refuses
        return None
    return labels if isinstance(labels, int) and labels != 2 else None


def _exact(value) -> bool:
    """A default kept: an integer, flag, string, None, or a list of them (a float or a mapping
    of them, a dropout or the rotary parameters, sizes no weight)."""
    if isinstance(value, list):
        return all(_exact(v) for v in value)
    return value is None or type(value) in (bool, int, str)


def generate(model_types) -> dict[str, Any]:
    """(Imports transformers.) ``{"transformers": version, "defaults": {model type: declared
    defaults}}`` for each of ``model_types`` transformers knows whose config is no composite
    (a composite's top-level keys echo its sub-configs': PaliGemma's vocab_size)."""
    import transformers
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    defaults = {}
    for model_type in sorted(set(model_types)):
        if model_type not in CONFIG_MAPPING:
            continue
        config_class = CONFIG_MAPPING[model_type]
        if getattr(config_class, "sub_configs", None):
            continue  # a composite: its top-level keys echo its sub-configs' (vocab_size)
        defaults[model_type] = declared(config_class)
        labels = _labels(config_class)
        if labels is not None:  # a class head's width where neither num_labels nor id2label is
            defaults[model_type]["num_labels"] = labels
    return {"transformers": transformers.__version__, "defaults": defaults}


def table() -> dict[str, Any]:
    """:func:`generate` for every model type a registered family's table reads."""
    from paramcount.analyze import configs

    types, _ = configs.supported()
    return generate(types)


def write(path: Path | None = None) -> Path:
    from paramcount.analyze.hf_defaults import DATA

    path = path or DATA
    path.write_text(json.dumps(table(), indent=1, sort_keys=True) + "\n")
    return path


if __name__ == "__main__":
    print(write())
