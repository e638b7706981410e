"""Phi-3 (Abdin et al. 2024) as KerasHub builds it: keras_hub.models.Phi3Backbone.

Token embedding and an *untied* output projection (``ReversibleEmbedding(tie_weights=False)``:
the backbone holds both), rotary positions (plain or "su"-scaled for the 128k models: no
parameters either way), L pre-norm blocks of bias-free grouped-query attention and a SwiGLU
feed-forward, RMS norms (scale only) throughout.
"""

from __future__ import annotations

from paramcount.core.formula import FUSED, group
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Fixed, Holds, Requires, Sets
from paramcount.core.symbols import L, M, M_kv, d_e, d_f, v
from paramcount.families._lineages import (
    FFN,
    GQA,
    HF_HEAD_DIM,
    KV_HEADS_OR_M,
    LAYERS,
    QUERY_HEADS,
    ROTARY_PAIRS_VALIDATED,
    VOCAB,
    WIDTH,
)
from paramcount.model.components import attention, embedding
from paramcount.model.components.basic import EVEN_HEADS
from paramcount.model.components.modern import gated_feed_forward, rms_norm, rotary_positions
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Table
from paramcount.model.registry import Architecture, register
from paramcount.model.weights import Named

IDS = ("phi3",)  # the ids this folder registers


# symbol ↔ Phi3Backbone argument ↔ Phi3Config key. Phi3Config's num_key_value_heads defaults
# (absent or null) to the query heads; KerasHub has no head_dim: d_k = d_e/M.
MAPPING = Table(
    fields=(
        VOCAB,
        LAYERS,
        QUERY_HEADS,
        KV_HEADS_OR_M,
        WIDTH,
        FFN,
        HF_HEAD_DIM,
    ),
    model_type="phi3",
    hf_classes={"Phi3ForCausalLM": "phi3"},
    keras_classes={"Phi3Backbone": "phi3"},
    restrictions=(
        Sets("tie_word_embeddings", False, why="KerasHub's Phi3Backbone always keeps an untied LM head"),
        *Sets.each(dict.fromkeys(("pad_token_id", "bos_token_id", "eos_token_id")),
            why="Phi3Config's default token ids (32000) lie past a small vocabulary: torch refuses the padding row"),
        Requires("tie_word_embeddings", (False,), why="KerasHub's Phi3Backbone always keeps an untied LM head"),
    ),
    free=frozenset({
        "hidden_act", "max_position_embeddings", "original_max_position_embeddings",
        "rms_norm_eps", "rope_theta", "rope_scaling", "rope_parameters", "partial_rotary_factor",
        "resid_pdrop", "embd_pdrop", "attention_dropout", "sliding_window",
        "layer_norm_epsilon", "dropout", "max_sequence_length", "pretraining_sequence_length",
        "rope_max_wavelength", "rope_scaling_type", "rope_scaling_short_factor",
        "rope_scaling_long_factor",
    }),
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
    "blocks.ffn.gate": ("gate_up_proj", (0, 2, 0)),
    "blocks.ffn.up": ("gate_up_proj", (1, 2, 0)),
    "blocks.ffn.down": "down_proj",
    "final_norm": "model/norm",
    "head": "lm_head",
})

register(Architecture(
    id="phi3",
    title="Phi-3 backbone (keras_hub.models.Phi3Backbone): GQA, SwiGLU, RMS norm, untied head",
    source="Abdin et al. 2024, 'Phi-3 Technical Report'; "
           "keras_hub/src/models/phi3/phi3_{backbone,decoder,attention,layernorm}.py",
    formula=group(
        "phi3",
        group(
            "embeddings",
            embedding("token", v, match="token_embedding/embeddings"),
            rotary_positions(),
        ),
        group(
            "blocks",
            rms_norm("norm_1", match="pre_attention_layernorm"),
            attention("attention", match="attention", kv_heads=M_kv, bias=0),
            rms_norm("norm_2", match="post_attention_layernorm"),
            gated_feed_forward(),
            times=L,
            match=r"transformer_layer_\d+",
        ),
        rms_norm("final_norm", match="sequence_output_layernorm"),
        embedding("head", v, match="token_embedding/reverse_embeddings", kind="head",
                  note="untied output projection d_e × v, held by the backbone's embedding layer"),
    ),
    required=(v, d_e, M, d_f, L),
    optional={M_kv: M},
    restrictions=(
        *Fixed.each(EVEN_HEADS,
            why="KerasHub's attention layers make each head d_e // M wide (floored), keys and values alike"),
        Holds(Divisible(d_e, M),
            why="the heads split the width exactly: the fused query-key-value projection is 3·d_e wide"),
        GQA,
    ),
    # Phi-3 floors d_e // M, but with M = M_kv·M' the prover cannot split floor(d_e/M) yet.
    reference=Named("reference_models.table:backbone", ("phi3",)),
    counting="trainable weights of the backbone, which includes the untied LM head "
             "(token_embedding/reverse_embeddings)",
    presets="phi3",
    keras_hub_metadata=True,
    family="keras_hub",
    mapping=MAPPING,
    transformers=TRANSFORMERS,
    examples={
        "tiny": dict(v=100, d_e=32, M=4, M_kv=2, d_f=64, L=2),
        "mqa_odd": dict(v=997, d_e=45, M=5, M_kv=1, d_f=13, L=3),
        "mha": dict(v=61, d_e=24, M=3, d_f=40, L=1),
    },
))
