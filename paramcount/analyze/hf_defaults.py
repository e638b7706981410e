"""What a transformers config class takes for a key its ``config.json`` leaves out.

A family's table reads the keys a file holds; a key the file leaves out is the config class's
own default, which is not always the value the table would assume: GemmaConfig's
``num_key_value_heads`` is 16 (not the query heads), BartConfig's ``decoder_layers`` 12 (not
the encoder's), GraniteMoeHybridConfig's ``num_local_experts`` 8 routed experts. Each config a
table reads is therefore completed with its class's *declared* defaults (the dataclass fields'
own values, before ``__post_init__`` derives anything from the others) before the table reads
it.

``count --config`` imports no framework, so the defaults are data, ``hf_defaults.json``,
generated from the installed transformers (``python -m
paramcount.analyze.hf_defaults_generate``); ``tests/test_hf_defaults.py`` checks it against the
installed transformers, and the one-field-at-a-time sweep (``tests/_config_fields.py``) takes
each key out of a config and compares the count with the build.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["DATA", "completed", "defaults"]

DATA = Path(__file__).with_name("hf_defaults.json")


@functools.cache
def _data() -> dict[str, Any]:
    from paramcount.runtime.inputs import parse_json

    return parse_json(DATA.read_text(), str(DATA), "paramcount's table of config defaults")


def defaults(model_type: str) -> dict[str, Any]:
    """The declared defaults of ``model_type``'s config class ({} for a type not recorded)."""
    return dict(_data()["defaults"].get(model_type, {}))


def completed(data: Mapping[str, Any], model_type: str) -> tuple[dict[str, Any], frozenset[str]]:
    """``data`` with each key it lacks at its class's default, and the keys so added."""
    given = defaults(model_type)
    if "id2label" in data:  # the labels given: their number, not the class's default count
        given.pop("num_labels", None)
    added = frozenset(k for k in given if k not in data)
    return {**{k: given[k] for k in added}, **data}, added
