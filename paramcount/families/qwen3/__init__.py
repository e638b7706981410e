"""Qwen 3 dense models (Qwen Team 2025, "Qwen3 Technical Report") as KerasHub builds them:
Qwen3Backbone.

The Llama block with QK norm: an RMS norm of width d_k (one scale shared by all heads) on every
query head and every key head, before RoPE. No attention biases (Qwen 2 had q/k/v biases), SwiGLU,
grouped-query attention with a head width d_k set apart from d_e/M (128 in every published size).
The small models (0.6B–4B) tie the LM head to the token embedding.
"""

from __future__ import annotations

from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Holds, Requires, Sets
from paramcount.core.symbols import L, M, M_kv, d_e, d_f, d_k, v
from paramcount.families._lineages import DECODER_FIELDS, FFN, GQA, TIED_KERAS_YES
from paramcount.families.qwen import TRANSFORMERS as QWEN_TRANSFORMERS
from paramcount.model.components.llama_like import gqa_attention, keras_hub_decoder
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field, Table
from paramcount.model.registry import register

IDS = ("qwen3",)  # the ids this folder registers


# symbol ↔ Qwen3Backbone argument ↔ Qwen3Config key. Absent keys: transformers' head_dim is 128,
# its tie_word_embeddings false; KerasHub's tie_word_embeddings is true.
MAPPING = Table(
    fields=(
        *DECODER_FIELDS,
        Field("d_k", keras="head_dim", hf="head_dim", hf_default=128),
        FFN,
        TIED_KERAS_YES,
    ),
    model_type="qwen3",
    hf_classes={"Qwen3ForCausalLM": "qwen3"},
    keras_classes={"Qwen3Backbone": "qwen3"},
    restrictions=(
        Sets("attention_bias", False,
            why="Qwen 3's attention has no biases (Qwen 2's had query, key and value biases)"),
        Requires("attention_bias", (False,), why="KerasHub's Qwen3 attention has no biases"),
    ),
    free=frozenset({
        "hidden_act", "max_position_embeddings", "rms_norm_eps", "rope_theta", "rope_scaling",
        "rope_parameters", "attention_dropout", "use_sliding_window", "sliding_window",
        "max_window_layers", "layer_types", "rope_max_wavelength", "rope_scaling_factor",
        "layer_norm_epsilon", "dropout", "sliding_window_size",
    }),
)

# Qwen3ForCausalLM's names: Qwen 2's, with the per-head QK norms q_norm and k_norm; its rotary
# width d_k is set apart from d_e/M.
TRANSFORMERS = Transformers(restrictions=(
    Holds(Divisible(d_k, 2), binds="transformers",
        why="transformers validates an even rotary width (head_dim, set apart from d_e/M)"),
), weights={
    **QWEN_TRANSFORMERS.weights,
    "blocks.attention.query_norm": "q_norm",
    "blocks.attention.key_norm": "k_norm",
})

register(keras_hub_decoder(
    "qwen3",
    title="Qwen 3 backbone (keras_hub.models.Qwen3Backbone): GQA with QK norm, SwiGLU, RoPE",
    source="Qwen Team 2025 (Qwen3 Technical Report), table 1; "
           "keras_hub/src/models/qwen3/qwen3_backbone.py",
    attention_term=gqa_attention(qk_norm=True),
    counting_extra=" (QK norms included)",
    required=(v, d_e, M, M_kv, d_k, d_f, L),
    restrictions=(GQA,),
    mapping=MAPPING,
    transformers=TRANSFORMERS,
    examples={
        "tiny_tied": dict(v=97, d_e=32, M=8, M_kv=2, d_k=4, d_f=48, L=2),
        "tiny_untied_wide_heads": dict(v=31, d_e=21, M=3, M_kv=1, d_k=10, d_f=13, L=3, tied=0),
        "tiny_mha": dict(v=10, d_e=12, M=4, M_kv=4, d_k=3, d_f=5, L=1, tied=1),
    },
))
