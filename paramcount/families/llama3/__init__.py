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
    title="Llama 3 / 3.1 / 3.2 backbone (keras_hub.models.Llama3Backbone): GQA, SwiGLU, RoPE",
    source="Grattafiori et al. 2024 (The Llama 3 Herd of Models), table 3; "
           "keras_hub/src/models/llama3/llama3_backbone.py",
    keras="Llama3Backbone",
    mapping=MAPPING,
    optional={tied: 0},
    examples={
        "tiny_gqa": dict(v=97, d_e=32, M=8, M_kv=2, d_f=48, L=2),
        "tiny_tied_odd": dict(v=61, d_e=18, M=3, M_kv=3, d_f=35, L=3, tied=1),
        "tiny_mqa_untied": dict(v=20, d_e=12, M=6, M_kv=1, d_f=7, L=1, tied=0),
    },
))
