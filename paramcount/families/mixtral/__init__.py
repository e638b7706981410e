"""Mixtral (Jiang et al. 2024, "Mixtral of Experts") as KerasHub builds it: MixtralBackbone.

Mistral's block with the feed-forward replaced by a sparse mixture of E SwiGLU experts (each d_e →
d_f → d_e, no biases) and a bias-free router d_e → E; each token uses the top k experts. KerasHub
stores each expert projection of a block as one (E, ·, ·) tensor.
"""

from __future__ import annotations

from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import E
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import v
from paramcount.families._decoders import LLAMA_FREE
from paramcount.families._decoders import LLAMA_ROTARY_VALIDATED
from paramcount.families._decoders import LLAMA_TRANSFORMERS
from paramcount.families._decoders import fused_gate_up
from paramcount.families._decoders import sliding
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import DECODER_FIELDS
from paramcount.families._lineages import FFN
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HEADS_SPLIT_WIDTH
from paramcount.families._lineages import HF_HEAD_DIM_IMPLIED
from paramcount.families._lineages import LOCAL_EXPERTS
from paramcount.families._lineages import ROUTED_TO_AT_MOST_ALL
from paramcount.families._lineages import split_heads
from paramcount.families._lineages import without_ffn
from paramcount.model.components.llama_like import backbone
from paramcount.model.components.llama_like import decoder_blocks
from paramcount.model.components.llama_like import moe_swiglu
from paramcount.model.components.modern import k_act
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("mixtral",)  # the ids this folder registers


# symbol ↔ MixtralBackbone argument ↔ MixtralConfig key. MixtralConfig's num_key_value_heads is 8
# when absent (d_e/M only when null), so the key is read, never defaulted. KerasHub has no
# head_dim: d_k = d_e/M, and a config may state head_dim only with that value.
MAPPING = family_table(
    "mixtral", hf="MixtralForCausalLM", keras="MixtralBackbone",
    fields=(
        *DECODER_FIELDS, FFN, LOCAL_EXPERTS,
        # top-k changes the active count only; both frameworks default it to 2
        Field("k", keras="top_k", hf="num_experts_per_tok", hf_default=2, keras_default=2),
        HF_HEAD_DIM_IMPLIED,
    ),
    restrictions=(
        Sets("tie_word_embeddings", False, why="Mixtral's LM head is a matrix of its own (untied)"),
        Requires("tie_word_embeddings", (False,), why="KerasHub's MixtralBackbone always keeps an untied LM head"),
    ),
    free=LLAMA_FREE | {
        "rope_scaling", "sliding_window", "output_router_logits", "router_aux_loss_coef", "router_jitter_noise",
        "rope_scaling_factor",
    },
)

# MixtralForCausalLM: Llama's names for attention and norms; the MoE block ``mlp`` holds the
# router ``gate`` (E × d_e) and the experts stacked as two tensors, ``gate_up_proj``
# (E, 2·d_f, d_e: gate rows, then up rows) and ``down_proj`` (E, d_e, d_f).
TRANSFORMERS = Transformers(restrictions=(
    *LLAMA_ROTARY_VALIDATED,
), weights={
    **without_ffn(LLAMA_TRANSFORMERS.weights),
    "blocks.moe": "mlp",
    "blocks.moe.router": "gate",
    "blocks.moe.experts": "experts",
    **fused_gate_up("blocks.moe.experts.expert", 1),
}, **sliding(default=None))  # MixtralConfig: no window unless a config sets one (every layer then)

register(keras_hub_backbone(
    "mixtral",
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
    mapping=MAPPING,
    transformers=TRANSFORMERS,
))
