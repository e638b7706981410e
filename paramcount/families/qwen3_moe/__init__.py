"""Qwen 3 mixture-of-experts models (Qwen Team 2025, "Qwen3 Technical Report") as KerasHub builds
them: Qwen3MoeBackbone.

Qwen 3's attention (grouped-query, QK norm, no biases) and, in place of the dense feed-forward, E
fine-grained SwiGLU experts of width d_fe with a bias-free router; each token uses k of them and,
unlike Qwen1.5-MoE, there is no shared expert. KerasHub stores each expert's gate and up
projections as one (E, d_e, 2·d_fe) tensor. Blocks listed in ``mlp_only_layers`` (and, with
``decoder_sparse_step`` > 1, the blocks off the step) keep a dense SwiGLU of width d_f instead: a
heterogeneous stack of L_moe sparse and L_dense = L − L_moe dense blocks
(:data:`paramcount.model.components.stacks.MOE_AND_DENSE`); every published model has L_moe = L.
Unlike QwenMoeBackbone, Qwen3MoeBackbone passes each block its index.
"""

from __future__ import annotations

from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import E
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import v
from paramcount.families._decoders import QWEN3_TRANSFORMERS
from paramcount.families._decoders import QWEN_FREE
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import DECODER_FIELDS
from paramcount.families._lineages import EXPERT_FFN
from paramcount.families._lineages import EXPERTS
from paramcount.families._lineages import FFN
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HEAD_DIM
from paramcount.families._lineages import HF_LOCAL_EXPERTS
from paramcount.families._lineages import QWEN_DENSE_FFN_NAMES
from paramcount.families._lineages import QWEN_MOE_NAMES
from paramcount.families._lineages import ROUTED_TO_AT_MOST_ALL
from paramcount.families._lineages import SPARSE_AND_DENSE
from paramcount.families._lineages import TIED_NO
from paramcount.families._lineages import TOP_K
from paramcount.families._lineages import dense_block_rows
from paramcount.families._lineages import without_ffn
from paramcount.model.components.llama_like import BLOCK
from paramcount.model.components.llama_like import backbone
from paramcount.model.components.llama_like import d_fe
from paramcount.model.components.llama_like import gqa_attention
from paramcount.model.components.llama_like import moe_swiglu
from paramcount.model.components.llama_like import swiglu
from paramcount.model.components.llama_like import tied
from paramcount.model.components.modern import k_act
from paramcount.model.components.modern import rms_norm
from paramcount.model.components.stacks import MOE_AND_DENSE
from paramcount.model.components.stacks import L_moe
from paramcount.model.frameworks import Transformers
from paramcount.model.registry import register

IDS = ("qwen3_moe",)  # the ids this folder registers


BLOCKS = MOE_AND_DENSE.stack(
    "blocks",
    common=(
        rms_norm("attention_norm", match="self_attention_layernorm"),
        gqa_attention(qk_norm=True),
        rms_norm("ffn_norm", match="feedforward_layernorm"),
    ),
    per_kind={
        "moe": (moe_swiglu(block=r"qwen3_sparse_moe_block(?:_\d+)?", inner=d_fe,
                           fused_gate_up=True),),
        "dense": (swiglu("dense_ffn", match=r"qwen3_moe_mlp(?:_\d+)?"),),
    },
    match=BLOCK,
    note="L blocks: attention and norms in each, the experts in L_moe of them, a dense "
         "feed-forward in the rest",
)



def _dense_blocks(hp):
    """Which blocks are dense, as both frameworks take it: the first L − L_moe (which ones
    changes no count; Qwen3MoeBackbone and Qwen3MoeDecoderLayer both give each block its index)."""
    return list(range(hp["L"] - hp["L_moe"]))


# symbol ↔ Qwen3MoeBackbone argument ↔ Qwen3MoeConfig key. Both references build L_moe's dense
# blocks (mlp_only_layers written from it), but the readers do not yet turn a config's
# mlp_only_layers / decoder_sparse_step into L_moe: a config that sets either otherwise than
# "all blocks sparse" is refused, so L_moe read from a config is always L.
_SPARSE_ONLY = ("every block is a mixture of experts in what a config is read as (dense blocks "
                "among them, L_moe < L, are counted but not yet read from a config)")
MAPPING = family_table(
    "qwen3_moe", hf="Qwen3MoeForCausalLM", keras="Qwen3MoeBackbone",
    fields=(
        *DECODER_FIELDS,
        # absent or null: d_e/M in both frameworks, the formula's default too
        HEAD_DIM,
        FFN,
        EXPERTS,
        # transformers 5 saves the expert count under this name too (an alias of num_experts)
        HF_LOCAL_EXPERTS,
        TOP_K,
        EXPERT_FFN,
        TIED_NO,
    ),
    restrictions=(
        Sets("attention_bias", False, why="KerasHub's Qwen3 MoE attention has no biases"),
        *dense_block_rows(_dense_blocks),
        Requires("attention_bias", (False,), why="KerasHub's Qwen3 MoE attention has no biases"),
        Requires("mlp_only_layers", ([],), why=_SPARSE_ONLY),
        Requires("decoder_sparse_step", (1,), why=_SPARSE_ONLY),
        Requires("mlp_only_layers", ([],), binds="keras", why=_SPARSE_ONLY),
        Requires("decoder_sparse_step", (1,), binds="keras", why=_SPARSE_ONLY),
    ),
    free=QWEN_FREE | {
        "norm_topk_prob", "output_router_logits", "router_aux_loss_coef", "norm_top_k_prob",
        "router_aux_loss_coefficient",
    },
)

# Qwen3MoeForCausalLM's names: Qwen 3's attention (QK norms) and norms; in a sparse block's
# ``mlp`` the router ``gate`` and the routed experts as two stacked tensors (gate_up_proj:
# E × 2·d_fe × d_e, down_proj). A dense block's ``mlp`` holds gate_proj, up_proj, down_proj
# directly (the lookahead keeps the experts' down_proj out of it).
TRANSFORMERS = Transformers(
    restrictions=(
        *Holds.each(QWEN3_TRANSFORMERS.prove_within, binds="proof",
            why="transformers' validate_rope refuses an odd rotary width (head_dim) above 4: prove samples "
                "even ones"),
    ),
    weights={
        **without_ffn(QWEN3_TRANSFORMERS.weights), **QWEN_MOE_NAMES, **QWEN_DENSE_FFN_NAMES,
    },
)

register(keras_hub_backbone(
    "qwen3_moe",
    formula=backbone("qwen3_moe", BLOCKS),
    required=(v, d_e, M, M_kv, d_f, L, E, d_fe),
    optional={d_k: d_e / M, k_act: 4, tied: 0, L_moe: L},
    restrictions=(
        *SPARSE_AND_DENSE,
        GQA,
        ROUTED_TO_AT_MOST_ALL,
        *Holds.each(MOE_AND_DENSE.constraints()),
    ),
    mapping=MAPPING,
    transformers=TRANSFORMERS,
))
