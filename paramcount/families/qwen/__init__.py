"""Qwen 2 / Qwen 2.5 (Qwen Team 2024, "Qwen2 Technical Report" and "Qwen2.5 Technical Report") as
KerasHub builds them: QwenBackbone.

The Llama block with biases on the query, key and value projections only (none on the output
projection, none in the feed-forward): RMS norms, RoPE, grouped-query attention, SwiGLU. The small
models tie the LM head to the token embedding; from 7B on it is a matrix of its own, which
KerasHub keeps in the backbone.
"""

from __future__ import annotations

from paramcount.families._decoders import LLAMA_TRANSFORMERS
from paramcount.families._decoders import QWEN_FREE
from paramcount.families._decoders import keras_llama
from paramcount.families._lineages import DECODER_FIELDS
from paramcount.families._lineages import FFN
from paramcount.families._lineages import HF_HEAD_DIM_IMPLIED
from paramcount.families._lineages import TIED_KERAS_YES
from paramcount.model.components.llama_like import gqa_attention
from paramcount.model.registry import register

IDS = ("qwen",)  # the ids this folder registers


# Qwen2ForCausalLM's names: Llama's, with biases on q_proj, k_proj and v_proj (none on o_proj,
# none in the MLP), which the same patterns claim. transformers validates an even rotary width.
TRANSFORMERS = LLAMA_TRANSFORMERS  # the same names and rotary-width rule

register(keras_llama(
    "qwen",
    hf="Qwen2ForCausalLM", keras="QwenBackbone", model_type="qwen2",
    # symbol ↔ QwenBackbone argument ↔ Qwen2Config key. The two frameworks disagree on an absent
    # tie_word_embeddings: KerasHub ties by default, transformers does not. QwenBackbone has no
    # head_dim argument (d_k = d_e/M); Qwen2Attention reads one when a config sets it, so a
    # config may state it only with that value.
    fields=(*DECODER_FIELDS, FFN, HF_HEAD_DIM_IMPLIED, TIED_KERAS_YES),
    base_free=QWEN_FREE,
    attention_term=gqa_attention(bias=(1, 1, 1, 0)),
))
