"""Llama 3, 3.1 and 3.2 (Grattafiori et al. 2024, "The Llama 3 Herd of Models") as KerasHub builds
them: Llama3Backbone, which is LlamaBackbone under another name (the RoPE frequency scaling of 3.1
costs no parameters). The 3.2 models tie the LM head to the token embedding; 3 and 3.1 do not.
"""

from __future__ import annotations

import dataclasses

from paramcount.core.symbols import tied
from paramcount.families._decoders import keras_llama
from paramcount.families.llama import LLAMA
from paramcount.model.registry import register

IDS = ("llama3",)  # the ids this folder registers


# Llama's table under Llama3Backbone; transformers builds Llama 3 with LlamaForCausalLM, whose
# config files (model_type "llama") read as ``llama``, the same formula.
assert LLAMA.mapping is not None
MAPPING = dataclasses.replace(LLAMA.mapping, hf_classes={}, hf_builds={"llama3": "LlamaForCausalLM"},
                              keras_classes={"Llama3Backbone": "llama3"})

register(keras_llama(
    "llama3",
    keras="Llama3Backbone",
    mapping=MAPPING,
    optional={tied: 0},
))
