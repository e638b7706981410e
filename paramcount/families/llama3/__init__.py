"""Llama 3, 3.1 and 3.2 (Grattafiori et al. 2024, "The Llama 3 Herd of Models") as KerasHub builds
them: Llama3Backbone, which is LlamaBackbone under another name (the RoPE frequency scaling of 3.1
costs no parameters). The 3.2 models tie the LM head to the token embedding; 3 and 3.1 do not.
"""

from __future__ import annotations

import dataclasses

from paramcount.core.symbols import L, M, M_kv, d_e, d_f, v
from paramcount.families._lineages import GQA, HEADS_SPLIT_WIDTH, split_heads
from paramcount.families.llama import MAPPING as LLAMA_MAPPING
from paramcount.families.llama import TRANSFORMERS as LLAMA_TRANSFORMERS
from paramcount.model.components.llama_like import backbone, decoder_blocks, swiglu, tied
from paramcount.model.registry import Architecture, register
from paramcount.model.weights import Named

IDS = ("llama3",)  # the ids this folder registers


# Llama's table under Llama3Backbone; transformers builds Llama 3 with LlamaForCausalLM, whose
# config files (model_type "llama") read as ``llama``, the same formula.
MAPPING = dataclasses.replace(LLAMA_MAPPING, hf_classes={}, hf_builds={"llama3": "LlamaForCausalLM"},
                              keras_classes={"Llama3Backbone": "llama3"})

register(Architecture(
    id="llama3",
    title="Llama 3 / 3.1 / 3.2 backbone (keras_hub.models.Llama3Backbone): GQA, SwiGLU, RoPE",
    source="Grattafiori et al. 2024 (The Llama 3 Herd of Models), table 3; "
           "keras_hub/src/models/llama3/llama3_backbone.py",
    formula=backbone("llama3", decoder_blocks(swiglu())),
    required=(v, d_e, M, M_kv, d_f, L),
    optional={tied: 0},
    restrictions=(
        split_heads("Llama3Backbone", "the width"),
        HEADS_SPLIT_WIDTH,
        GQA,
    ),
    reference=Named("reference_models.table:backbone", ("llama3",)),
    counting="trainable weights of the backbone: token embedding, L decoder blocks, final RMS "
             "norm and the LM head KerasHub keeps in the backbone (none when tied)",
    presets="llama3",
    keras_hub_metadata=True,
    family="keras_hub",
    mapping=MAPPING,
    transformers=LLAMA_TRANSFORMERS,
    examples={
        "tiny_gqa": dict(v=97, d_e=32, M=8, M_kv=2, d_f=48, L=2),
        "tiny_tied_odd": dict(v=61, d_e=18, M=3, M_kv=3, d_f=35, L=3, tied=1),
        "tiny_mqa_untied": dict(v=20, d_e=12, M=6, M_kv=1, d_f=7, L=1, tied=0),
    },
))
