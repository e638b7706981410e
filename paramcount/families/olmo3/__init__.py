"""OLMo 3 (Team OLMo 2025, "OLMo 3"), as transformers builds it: Olmo3ForCausalLM. KerasHub has
no OLMo, so transformers is the reference.

OLMo 2's weights exactly (:mod:`paramcount.families.olmo2`: post-norm blocks, all-heads QK
norm, SwiGLU): what OLMo 3 changes is which blocks attend through a sliding window (three of
every four, ``layer_types``, ``sliding_window``) and the rotary scaling, neither of which holds a
weight. So the formula is OLMo 2's, read from the olmo3 model type.
"""

from __future__ import annotations

import dataclasses

from paramcount.families._decoders import sliding
from paramcount.families.olmo2 import OLMO2
from paramcount.model.frameworks import Transformers
from paramcount.model.frameworks import own_weights
from paramcount.model.registry import Architecture
from paramcount.model.registry import get
from paramcount.model.registry import register
from paramcount.model.weights import Named

IDS = ("olmo3",)  # the ids this folder registers


FORMULA = dataclasses.replace(OLMO2, name="olmo3")
_OLMO2: Architecture = get("olmo2")
_MAPPING = _OLMO2.mapping
assert _MAPPING is not None

register(dataclasses.replace(
    _OLMO2,
    id="olmo3",
    title="OLMo 3 (transformers Olmo3ForCausalLM): OLMo 2's post-norm blocks, sliding-window "
          "attention in three of four (no weight)",
    source="Team OLMo 2025 (OLMo 3); transformers/models/olmo3/modeling_olmo3.py",
    formula=FORMULA,
    reference=Named("reference_models.hf:weights", ("olmo3",)),
    presets="olmo3",
    mapping=dataclasses.replace(
        _MAPPING, model_type="olmo3", hf_classes={"Olmo3ForCausalLM": "olmo3"},
        free=_MAPPING.free | {"sliding_window", "layer_types"}),
    transformers=Transformers(weights=own_weights(FORMULA), **sliding(4)),  # 3 of 4 in a window
))
