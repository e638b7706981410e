"""Qwen 2 / Qwen 2.5 (Qwen Team 2024, "Qwen2 Technical Report" and "Qwen2.5 Technical Report") as
KerasHub builds them: QwenBackbone.

The Llama block with biases on the query, key and value projections only (none on the output
projection, none in the feed-forward): RMS norms, RoPE, grouped-query attention, SwiGLU. The small
models tie the LM head to the token embedding; from 7B on it is a matrix of its own, which
KerasHub keeps in the backbone.
"""

from __future__ import annotations

from paramcount.core.symbols import L, M, M_kv, d_e, d_f, v
from paramcount.families._lineages import (
    DECODER_FIELDS,
    FFN,
    GQA,
    HEADS_SPLIT_WIDTH,
    HF_HEAD_DIM,
    TIED_KERAS_YES,
    split_heads,
)
from paramcount.families.llama import TRANSFORMERS as LLAMA_TRANSFORMERS
from paramcount.model.components.llama_like import gqa_attention, keras_hub_decoder
from paramcount.model.mapping import Table
from paramcount.model.registry import register

IDS = ("qwen",)  # the ids this folder registers


# symbol ↔ QwenBackbone argument ↔ Qwen2Config key. The two frameworks disagree on an absent
# tie_word_embeddings: KerasHub ties by default, transformers does not.
MAPPING = Table(
    fields=(
        *DECODER_FIELDS,
        FFN,
        # QwenBackbone has no head_dim argument (d_k = d_e/M); Qwen2Attention reads one when a
        # config sets it, so a config may state it only with that value.
        HF_HEAD_DIM,
        TIED_KERAS_YES,
    ),
    model_type="qwen2",
    hf_classes={"Qwen2ForCausalLM": "qwen"},
    keras_classes={"QwenBackbone": "qwen"},
    free=frozenset({
        "hidden_act", "max_position_embeddings", "rms_norm_eps", "rope_theta", "rope_scaling",
        "rope_parameters", "attention_dropout", "use_sliding_window", "sliding_window",
        "max_window_layers", "layer_types", "rope_max_wavelength", "rope_scaling_factor",
        "layer_norm_epsilon", "dropout", "use_sliding_window_attention", "sliding_window_size",
        "use_mrope",
    }),
)

# Qwen2ForCausalLM's names: Llama's, with biases on q_proj, k_proj and v_proj (none on o_proj,
# none in the MLP), which the same patterns claim. transformers validates an even rotary width.
TRANSFORMERS = LLAMA_TRANSFORMERS  # the same names and rotary-width rule

register(keras_hub_decoder(
    "qwen",
    title="Qwen 2 / 2.5 backbone (keras_hub.models.QwenBackbone): GQA with q/k/v biases, SwiGLU",
    source="Qwen Team 2024 (Qwen2, Qwen2.5 technical reports); "
           "keras_hub/src/models/qwen/qwen_backbone.py",
    attention_term=gqa_attention(bias=(1, 1, 1, 0)),
    required=(v, d_e, M, M_kv, d_f, L),
    restrictions=(
        split_heads("QwenBackbone", "the width"),
        HEADS_SPLIT_WIDTH,
        GQA,
    ),
    mapping=MAPPING,
    transformers=TRANSFORMERS,
    examples={
        "tiny_tied": dict(v=97, d_e=32, M=8, M_kv=2, d_f=48, L=2),
        "tiny_untied_odd": dict(v=31, d_e=21, M=7, M_kv=7, d_f=13, L=3, tied=0),
        "tiny_mqa": dict(v=10, d_e=12, M=4, M_kv=1, d_f=5, L=1, tied=1),
    },
))
