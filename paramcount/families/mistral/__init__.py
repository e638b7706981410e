"""Mistral 7B (Jiang et al. 2023) and its descendants as KerasHub builds them: MistralBackbone.

The Llama block (RMS norms, RoPE, grouped-query attention without biases, SwiGLU) with sliding-
window attention, which costs no parameters, and an untied LM head kept in the backbone. The head
width d_k defaults to d_e/M; Mistral Small 3 (Magistral) sets it apart (128 with d_e = 5120, M = 32).
"""

from __future__ import annotations

import dataclasses

from paramcount.core.restrictions import Requires, Sets
from paramcount.core.symbols import L, M, M_kv, d_e, d_f, d_k, v
from paramcount.families._lineages import EVEN_HEAD_DIM_VALIDATED, FFN, GQA, HEAD_DIM, LAYERS, QUERY_HEADS, VOCAB, WIDTH
from paramcount.families.llama import TRANSFORMERS as LLAMA_TRANSFORMERS
from paramcount.model.components.llama_like import backbone, decoder_blocks, swiglu
from paramcount.model.mapping import Field, Table
from paramcount.model.registry import Architecture, register
from paramcount.model.weights import Named

IDS = ("mistral",)  # the ids this folder registers


# symbol ↔ MistralBackbone argument ↔ MistralConfig key. head_dim absent or null: d_e/M in
# both frameworks, the formula's default too.
MAPPING = Table(
    fields=(
        VOCAB,
        LAYERS,
        QUERY_HEADS,
        # MistralConfig's absent num_key_value_heads is a fixed 8 (its dataclass default), not M
        Field("M_kv", keras="num_key_value_heads", hf="num_key_value_heads", hf_default=8),
        WIDTH,
        FFN,
        HEAD_DIM,
    ),
    model_type="mistral",
    hf_classes={"MistralForCausalLM": "mistral"},
    keras_classes={"MistralBackbone": "mistral"},
    restrictions=(
        Sets("tie_word_embeddings", False,
            why="Mistral's LM head is a matrix of its own (untied), kept in the backbone"),
        Requires("tie_word_embeddings", (False,), why="KerasHub's MistralBackbone always keeps an untied LM head"),
    ),
    free=frozenset({
        "hidden_act", "max_position_embeddings", "rms_norm_eps", "rope_theta", "rope_parameters",
        "sliding_window", "attention_dropout", "rope_max_wavelength", "rope_scaling_factor",
        "layer_norm_epsilon", "dropout",
    }),
)

register(Architecture(
    id="mistral",
    title="Mistral backbone (keras_hub.models.MistralBackbone): GQA, SwiGLU, RoPE, untied head",
    source="Jiang et al. 2023 (Mistral 7B), table 1; keras_hub/src/models/mistral/mistral_backbone.py",
    formula=backbone("mistral", decoder_blocks(swiglu()), tie=0),
    required=(v, d_e, M, M_kv, d_f, L),
    optional={d_k: d_e / M},
    restrictions=(
        GQA,
    ),
    reference=Named("reference_models.table:backbone", ("mistral",)),
    counting="trainable weights of the backbone: token embedding, L decoder blocks, final RMS "
             "norm and the untied LM head KerasHub keeps in the backbone",
    presets="mistral",
    keras_hub_metadata=True,
    family="keras_hub",
    mapping=MAPPING,
    # MistralForCausalLM names its parameters as Llama's does; its rotary width d_k is free here
    transformers=dataclasses.replace(LLAMA_TRANSFORMERS, restrictions=(
        EVEN_HEAD_DIM_VALIDATED,
    )),
    examples={
        "tiny": dict(v=97, d_e=32, M=8, M_kv=2, d_f=48, L=2),
        "tiny_wide_heads": dict(v=31, d_e=20, M=4, M_kv=1, d_f=27, L=3, d_k=9),
        "tiny_mha": dict(v=13, d_e=12, M=3, M_kv=3, d_f=5, L=1),
    },
))
