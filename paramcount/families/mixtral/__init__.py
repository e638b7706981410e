"""Mixtral (Jiang et al. 2024, "Mixtral of Experts") as KerasHub builds it: MixtralBackbone.

Mistral's block with the feed-forward replaced by a sparse mixture of E SwiGLU experts (each d_e →
d_f → d_e, no biases) and a bias-free router d_e → E; each token uses the top k experts. KerasHub
stores each expert projection of a block as one (E, ·, ·) tensor.
"""

from __future__ import annotations

from paramcount.core.restrictions import Holds, Requires, Sets
from paramcount.core.symbols import E, L, M, M_kv, d_e, d_f, v
from paramcount.families._lineages import (
    DECODER_FIELDS,
    FFN,
    GQA,
    HEADS_SPLIT_WIDTH,
    HF_HEAD_DIM,
    LOCAL_EXPERTS,
    ROUTED_TO_AT_MOST_ALL,
    split_heads,
)
from paramcount.families.llama import TRANSFORMERS as LLAMA_TRANSFORMERS
from paramcount.model.components.llama_like import backbone, decoder_blocks, moe_swiglu
from paramcount.model.components.modern import k_act
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field, Table
from paramcount.model.registry import Architecture, register
from paramcount.model.weights import Named

IDS = ("mixtral",)  # the ids this folder registers


# symbol ↔ MixtralBackbone argument ↔ MixtralConfig key. MixtralConfig's num_key_value_heads is 8
# when absent (d_e/M only when null), so the key is read, never defaulted. KerasHub has no
# head_dim: d_k = d_e/M, and a config may state head_dim only with that value.
MAPPING = Table(
    fields=(
        *DECODER_FIELDS,
        FFN,
        LOCAL_EXPERTS,
        # top-k changes the active count only; both frameworks default it to 2
        Field("k", keras="top_k", hf="num_experts_per_tok", hf_default=2, keras_default=2),
        HF_HEAD_DIM,
    ),
    model_type="mixtral",
    hf_classes={"MixtralForCausalLM": "mixtral"},
    keras_classes={"MixtralBackbone": "mixtral"},
    restrictions=(
        Sets("tie_word_embeddings", False, why="Mixtral's LM head is a matrix of its own (untied)"),
        Requires("tie_word_embeddings", (False,), why="KerasHub's MixtralBackbone always keeps an untied LM head"),
    ),
    free=frozenset({
        "hidden_act", "max_position_embeddings", "rms_norm_eps", "rope_theta", "rope_parameters",
        "rope_scaling", "sliding_window", "attention_dropout", "output_router_logits",
        "router_aux_loss_coef", "router_jitter_noise", "rope_max_wavelength",
        "rope_scaling_factor", "layer_norm_epsilon", "dropout",
    }),
)

# MixtralForCausalLM: Llama's names for attention and norms; the MoE block ``mlp`` holds the
# router ``gate`` (E × d_e) and the experts stacked as two tensors, ``gate_up_proj``
# (E, 2·d_f, d_e: gate rows, then up rows) and ``down_proj`` (E, d_e, d_f).
TRANSFORMERS = Transformers(restrictions=(
    *Holds.each(LLAMA_TRANSFORMERS.constraints, binds="transformers",
        why="transformers validates an even rotary width: d_k = d_e/M even (Llama's attention)"),
), weights={
    **{k: w for k, w in LLAMA_TRANSFORMERS.weights.items() if k.split(".")[:2] != ["blocks", "ffn"]},
    "blocks.moe": "mlp",
    "blocks.moe.router": "gate",
    "blocks.moe.experts": "experts",
    "blocks.moe.experts.expert.gate": ("gate_up_proj", (0, 2, 1)),
    "blocks.moe.experts.expert.up": ("gate_up_proj", (1, 2, 1)),
    "blocks.moe.experts.expert.down": "down_proj",
})

register(Architecture(
    id="mixtral",
    title="Mixtral MoE backbone (keras_hub.models.MixtralBackbone): E SwiGLU experts, top-k router",
    source="Jiang et al. 2024 (Mixtral of Experts), table 1; "
           "keras_hub/src/models/mixtral/mixtral_backbone.py",
    formula=backbone(
        "mixtral",
        decoder_blocks(moe_swiglu(block=r"mixtral_sparse_moe_block(?:_\d+)?")),
        tie=0,
    ),
    required=(v, d_e, M, M_kv, d_f, L, E),
    optional={k_act: 2},
    restrictions=(
        split_heads("MixtralBackbone", "the width"),
        HEADS_SPLIT_WIDTH,
        GQA,
        ROUTED_TO_AT_MOST_ALL,
    ),
    reference=Named("reference_models.table:backbone", ("mixtral",)),
    counting="trainable weights of the backbone: token embedding, L decoder blocks (router and E "
             "experts each), final RMS norm and the untied LM head KerasHub keeps in the "
             "backbone; active parameters count k of the E experts",
    presets="mixtral",
    keras_hub_metadata=True,
    family="keras_hub",
    mapping=MAPPING,
    transformers=TRANSFORMERS,
    examples={
        "tiny": dict(v=97, d_e=32, M=8, M_kv=2, d_f=48, L=2, E=4),
        "tiny_odd_top1": dict(v=31, d_e=21, M=3, M_kv=1, d_f=13, L=3, E=5, k=1),
        "tiny_all_experts": dict(v=11, d_e=8, M=2, M_kv=2, d_f=6, L=1, E=3, k=3),
    },
))
