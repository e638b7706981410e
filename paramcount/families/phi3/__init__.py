"""Phi-3 (Abdin et al. 2024) as KerasHub builds it: keras_hub.models.Phi3Backbone.

Token embedding and an *untied* output projection (``ReversibleEmbedding(tie_weights=False)``:
the backbone holds both), rotary positions (plain or "su"-scaled for the 128k models: no
parameters either way), L pre-norm blocks of bias-free grouped-query attention and a SwiGLU
feed-forward, RMS norms (scale only) throughout.
"""

from __future__ import annotations

from paramcount.core.formula import FUSED
from paramcount.core.formula import group
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import v
from paramcount.families._decoders import fused_gate_up
from paramcount.families._decoders import keras_llama
from paramcount.families._decoders import llama_table
from paramcount.families._decoders import sliding
from paramcount.families._decoders import untied_keras_ends
from paramcount.families._lineages import GQA
from paramcount.families._lineages import KERAS_FLOORED_HEADS
from paramcount.families._lineages import LLAMA_FIELDS
from paramcount.families._lineages import ROTARY_PAIRS_VALIDATED
from paramcount.model.components import attention
from paramcount.model.components.llama_like import embeddings
from paramcount.model.components.modern import gated_feed_forward
from paramcount.model.components.modern import rms_norm
from paramcount.model.frameworks import Transformers
from paramcount.model.registry import register

IDS = ("phi3",)  # the ids this folder registers


# symbol ↔ Phi3Backbone argument ↔ Phi3Config key. Phi3Config's num_key_value_heads defaults
# (absent or null) to the query heads; KerasHub has no head_dim: d_k = d_e/M.
MAPPING = llama_table(
    "phi3", hf="Phi3ForCausalLM", keras="Phi3Backbone", fields=LLAMA_FIELDS,
    restrictions=(
        Sets("tie_word_embeddings", False, why="KerasHub's Phi3Backbone always keeps an untied LM head"),
        *Sets.each(dict.fromkeys(("pad_token_id", "bos_token_id", "eos_token_id")),
            why="Phi3Config's default token ids (32000) lie past a small vocabulary: torch refuses the padding row"),
        Requires("tie_word_embeddings", (False,), why="KerasHub's Phi3Backbone always keeps an untied LM head"),
    ),
)

# Phi3ForCausalLM fuses q, k and v into one ``qkv_proj`` (rows M·d_k, then M_kv·d_k twice: the
# leaves share it, FUSED) and gate and up into one ``gate_up_proj`` (2·d_f rows: gate, then up).
TRANSFORMERS = Transformers(restrictions=(
    ROTARY_PAIRS_VALIDATED,
), weights={
    "embeddings.token": "model/embed_tokens",
    "blocks": r"layers/\d+",
    "blocks.norm_1": "input_layernorm",
    "blocks.attention": "self_attn",
    "blocks.attention.query": ("qkv_proj", FUSED),
    "blocks.attention.key": ("qkv_proj", FUSED),
    "blocks.attention.value": ("qkv_proj", FUSED),
    "blocks.attention.output": "o_proj",
    "blocks.norm_2": "post_attention_layernorm",
    "blocks.ffn": "mlp",
    **fused_gate_up("blocks.ffn", 0),
    "final_norm": "model/norm",
    "head": "lm_head",
}, **sliding(default=None))  # Phi3Config: no window unless a config sets one (every layer then)

register(keras_llama(
    "phi3",
    keras="Phi3Backbone",
    formula=group(
        "phi3",
        embeddings(),
        group(
            "blocks",
            rms_norm("norm_1", match="pre_attention_layernorm"),
            attention("attention", match="attention", kv_heads=M_kv, bias=0),
            rms_norm("norm_2", match="post_attention_layernorm"),
            gated_feed_forward(),
            times=L,
            match=r"transformer_layer_\d+",
        ),
        *untied_keras_ends(),
    ),
    required=(v, d_e, M, d_f, L),
    optional={M_kv: M},
    restrictions=(
        *KERAS_FLOORED_HEADS,
        Holds(Divisible(d_e, M),
            why="the heads split the width exactly: the fused query-key-value projection is 3·d_e wide"),
        GQA,
    ),
    mapping=MAPPING,
    transformers=TRANSFORMERS,
))
