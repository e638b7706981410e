"""Llama 2 (Touvron et al. 2023) as KerasHub builds it: LlamaBackbone.

Pre-norm decoder blocks with RMS norms, rotary positions, grouped-query attention without biases
(M_kv key/value heads; Llama 2 7B has M_kv = M) and a SwiGLU feed-forward of width d_f. KerasHub
keeps the LM head in the backbone (``ReversibleEmbedding``): untied it is a d_e × v matrix of its
own, tied (``tie_word_embeddings=True``) it is the token table transposed.
"""

from __future__ import annotations

import dataclasses

from paramcount.core.restrictions import Requires, Sets
from paramcount.core.symbols import L, M, M_kv, d_e, d_f, d_k, v
from paramcount.families._lineages import (
    EVEN_HEAD_DIM_VALIDATED,
    FFN,
    GQA,
    HEADS_SPLIT_WIDTH,
    HF_HEAD_DIM,
    KV_HEADS_OR_M,
    LAYERS,
    QUERY_HEADS,
    ROTARY_PAIRS_VALIDATED,
    TIED_NO,
    VOCAB,
    WIDTH,
    split_heads,
)
from paramcount.model.components.llama_like import backbone, decoder_blocks, hf_decoder_names, swiglu, tied
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Table
from paramcount.model.registry import Architecture, register
from paramcount.model.weights import Named

IDS = ("llama",)  # the ids this folder registers


FORMULA = backbone("llama", decoder_blocks(swiglu()))

# symbol ↔ LlamaBackbone argument ↔ LlamaConfig key (shared by Llama 3, with its own class).
MAPPING = Table(
    fields=(
        VOCAB,
        LAYERS,
        QUERY_HEADS,
        KV_HEADS_OR_M,
        WIDTH,
        FFN,
        # KerasHub's Llama has no head_dim argument: d_k is fixed to d_e/M there; transformers'
        # LlamaConfig takes head_dim apart (LLAMA_HF's settable below), as Mistral's does.
        HF_HEAD_DIM,
        TIED_NO,
    ),
    model_type="llama",
    hf_classes={"LlamaForCausalLM": "llama"},
    keras_classes={"LlamaBackbone": "llama"},
    restrictions=(
        Sets("attention_bias", False, why="KerasHub's Llama attention has no biases"),
        Sets("mlp_bias", False, why="KerasHub's Llama feed-forward has no biases"),
        Requires("attention_bias", (False,), why="KerasHub's Llama attention has no biases"),
        Requires("mlp_bias", (False,), why="KerasHub's Llama feed-forward has no biases"),
    ),
    free=frozenset({
        "hidden_act", "max_position_embeddings", "rms_norm_eps", "rope_theta", "rope_scaling",
        "rope_parameters", "attention_dropout", "pretraining_tp", "rope_max_wavelength",
        "rope_position_scaling_factor", "layer_norm_epsilon", "dropout",
        "rope_frequency_adjustment_factor", "rope_low_freq_factor", "rope_high_freq_factor",
        "rope_pretraining_sequence_length",
    }),
)

# LlamaForCausalLM's parameter names on the tree (rotary inv_freq is a non-persistent buffer;
# a tied lm_head is the embedding itself, listed once by named_parameters()).
TRANSFORMERS = Transformers(restrictions=(
    ROTARY_PAIRS_VALIDATED,
), weights={
    **hf_decoder_names(norms=("attention_norm", "ffn_norm")),
    "head": "lm_head",
})

# LlamaForCausalLM itself: head_dim is a key of its own (d_e/M when absent), any even width.
LLAMA_HF = dataclasses.replace(TRANSFORMERS, restrictions=(
    EVEN_HEAD_DIM_VALIDATED,
), settable={
    d_k: "LlamaConfig's head_dim is any (even) width; KerasHub's LlamaBackbone has no head_dim "
         "argument (d_e/M)"})

register(Architecture(
    id="llama",
    title="Llama 2 backbone (keras_hub.models.LlamaBackbone): GQA, SwiGLU, RMS norm, RoPE",
    source="Touvron et al. 2023 (Llama 2); keras_hub/src/models/llama/llama_backbone.py",
    formula=FORMULA,
    required=(v, d_e, M, M_kv, d_f, L),
    optional={tied: 0},
    restrictions=(
        split_heads("LlamaBackbone", "the width"),
        HEADS_SPLIT_WIDTH,
        GQA,
    ),
    reference=Named("reference_models.table:backbone", ("llama",)),
    counting="trainable weights of the backbone: token embedding, L decoder blocks, final RMS "
             "norm and the LM head KerasHub keeps in the backbone (none when tied)",
    presets="llama",
    keras_hub_metadata=True,
    family="keras_hub",
    mapping=MAPPING,
    transformers=LLAMA_HF,
    examples={
        "tiny_mha": dict(v=101, d_e=24, M=4, M_kv=4, d_f=40, L=2),
        "tiny_gqa_tied": dict(v=37, d_e=30, M=6, M_kv=2, d_f=53, L=3, tied=1),
        "tiny_mqa": dict(v=50, d_e=16, M=4, M_kv=1, d_f=21, L=1, tied=0),
    },
))
