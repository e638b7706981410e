"""A derived formula as a plugin: ``paramcount derive --emit-plugin FILE`` writes a module that
registers it, so ``--plugin FILE`` (or the entry-point group) makes it an architecture like any
other for ``count``, ``formula``, ``solve`` and the report. The module holds the derivation as
JSON data (templates, expressions, constraints) and where it came from; the formula tree is
rebuilt from that data at import, and torch is imported only when its reference is built."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["register_json", "write_plugin"]

# Pure data: every value below is a literal written with repr() (the docstring too), so no text
# of the user's (the file's name, the class and model type of a config) is ever spliced into
# code. A name holding """ once closed a docstring written between triple quotes, and what
# followed ran when the plugin was loaded (issue 30).
DOC = ("paramcount plugin: {cls} ({model_type}), its formula derived from transformers {tv}\n"
       "builds by `paramcount derive` (not hand-written). Load it with --plugin {name}.")
TEMPLATE = '''{doc}

import json

from paramcount.analyze.derive.plugin import register_json

DERIVATION = json.loads({data!r})
CONFIG = json.loads({config!r})

register_json(DERIVATION, {arch_id!r}, config=CONFIG)
'''


def register_json(data: Mapping[str, Any], arch_id: str, *,
                  config: Mapping[str, Any] | None = None):
    """Register the derivation ``data`` (:func:`paramcount.analyze.derive.store.to_json`) as
    ``arch_id``; its reference builds the transformers class from ``config`` on the meta
    device."""
    from paramcount.analyze.derive.store import from_json
    from paramcount.analyze.derive.tree import architecture
    from paramcount.model.registry import register

    d = from_json(data)
    flags = set(d.flags)

    def reference(hp: Mapping[str, int]):
        from paramcount.analyze.derive.probe import Source
        from reference_models.hf import torch_weights

        src = Source(model_type=d.model_type, config=dict(config or {}), cls=d.cls)
        over = {**d.explicit, **{k: (bool(v) if k in flags else v) for k, v in hp.items()
                                 if k in d.fields}}
        return torch_weights(src.model(src.config(over)))

    return register(architecture(d, reference, arch_id), replace=True)


def write_plugin(path: str, d, config: Mapping[str, Any] | None, arch_id: str) -> None:
    from pathlib import Path

    from paramcount.analyze.derive.store import to_json
    from paramcount.runtime.files import check_output, write_atomic

    doc = DOC.format(cls=d.cls, model_type=d.model_type,
                     tv=d.versions.get("transformers", "?"), name=Path(path).name)
    text = TEMPLATE.format(doc=repr(doc), data=json.dumps(to_json(d), sort_keys=True),
                           config=json.dumps(dict(config or {}), sort_keys=True),
                           arch_id=arch_id)
    write_atomic(check_output(path), text)
