"""Qwen1.5-MoE (Qwen Team 2024, "Qwen1.5-MoE: Matching 7B Model Performance with 1/3 Activated
Parameters") as KerasHub builds it: QwenMoeBackbone.

Qwen 2's attention (q/k/v biases, no output bias) and, in every block, a mixture of E fine-grained
SwiGLU experts of width d_fe (top k per token) beside a shared SwiGLU expert of width d_fs that
every token uses, scaled by a sigmoid gate d_e → 1. KerasHub stores each expert's gate and up
projections as one (E, d_e, 2·d_fe) tensor.

``decoder_sparse_step`` and ``mlp_only_layers`` make some blocks dense (a SwiGLU of width d_f,
no shared expert): a heterogeneous stack of L_moe sparse and L_dense = L − L_moe dense blocks
(:data:`paramcount.model.components.stacks.MOE_AND_DENSE` turns a configuration into the counts). The
published model has step 1 and no dense block (L_moe = L).

KerasHub's QwenMoeBackbone never passes a block its index (``layer_index`` keeps its default 0),
so each block applies the rule to index 0 and the stack comes out all alike: all sparse when
``decoder_sparse_step`` is 1 and 0 is not in ``mlp_only_layers``, otherwise all dense (KerasHub's
test configuration with ``mlp_only_layers=[0]``, meant to make one block dense, builds two dense
blocks: 5,392 parameters, L_moe = 0 here). This formula is the published model's, with any L_moe;
the reference builds KerasHub's blocks with their index given, which is KerasHub's backbone
whenever L_moe is 0 or L (every preset, and that test) and what its own decoder builds otherwise.
``MOE_AND_DENSE.counts(L, ..., index_seen=0)`` gives the L_moe KerasHub's backbone really has.
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import E
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import v
from paramcount.families._decoders import LLAMA_ROTARY_VALIDATED
from paramcount.families._decoders import LLAMA_TRANSFORMERS
from paramcount.families._decoders import QWEN_FREE
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import DECODER_FIELDS
from paramcount.families._lineages import FFN
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HEADS_SPLIT_WIDTH
from paramcount.families._lineages import HF_HEAD_DIM_IMPLIED
from paramcount.families._lineages import QWEN_DENSE_FFN_NAMES
from paramcount.families._lineages import QWEN_MOE_FIELDS
from paramcount.families._lineages import QWEN_MOE_NAMES
from paramcount.families._lineages import QWEN_SHARED_EXPERT_NAMES
from paramcount.families._lineages import ROUTED_TO_AT_MOST_ALL
from paramcount.families._lineages import SPARSE_AND_DENSE
from paramcount.families._lineages import TIED_NO
from paramcount.families._lineages import dense_block_rows
from paramcount.families._lineages import split_heads
from paramcount.families._lineages import without_ffn
from paramcount.model.components.basic import dense
from paramcount.model.components.llama_like import BLOCK
from paramcount.model.components.llama_like import backbone
from paramcount.model.components.llama_like import d_fe
from paramcount.model.components.llama_like import d_fs
from paramcount.model.components.llama_like import gqa_attention
from paramcount.model.components.llama_like import moe_swiglu
from paramcount.model.components.llama_like import swiglu
from paramcount.model.components.llama_like import tied
from paramcount.model.components.modern import k_act
from paramcount.model.components.modern import rms_norm
from paramcount.model.components.stacks import MOE_AND_DENSE
from paramcount.model.components.stacks import L_moe
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("qwen_moe",)  # the ids this folder registers


SHARED = group(
    "shared",
    swiglu("expert", d_fs, match="shared_expert_dense"),
    dense("gate", d_e, 1, bias=0, match="shared_expert_gate_dense"),
)

BLOCKS = MOE_AND_DENSE.stack(
    "blocks",
    common=(
        rms_norm("attention_norm", match="self_attention_layernorm"),
        gqa_attention(bias=(1, 1, 1, 0)),
        rms_norm("ffn_norm", match="feedforward_layernorm"),
    ),
    per_kind={
        "moe": (moe_swiglu(block=r"qwen_sparse_moe_block(?:_\d+)?", inner=d_fe,
                           fused_gate_up=True, shared=SHARED),),
        "dense": (swiglu("dense_ffn", match=r"qwen_moe_mlp(?:_\d+)?"),),
    },
    match=BLOCK,
    note="L blocks: attention and norms in each, the experts in L_moe of them, a dense "
         "feed-forward in the other L_dense",
)



def _dense_blocks(hp):
    """Which blocks are dense: the first L − L_moe (which ones changes no count).
    Qwen2MoeDecoderLayer gets its index, so transformers builds exactly these; KerasHub's
    backbone applies the list to index 0 in every block, which the Keras reference corrects."""
    return list(range(hp["L"] - hp["L_moe"]))


# symbol ↔ QwenMoeBackbone argument ↔ Qwen2MoeConfig key. Both references build L_moe's dense
# blocks (mlp_only_layers written from it, width intermediate_size = d_f). A transformers config's
# mlp_only_layers / decoder_sparse_step / num_experts are read into L_moe by the rule
# Qwen2MoeDecoderLayer applies to each block index (MOE_AND_DENSE). A KerasHub config that sets
# them otherwise than "all blocks sparse" is still refused: KerasHub's backbone applies the rule
# to index 0 in every block (see above), so its file does not say which blocks its own decoder
# would make dense.
_SPARSE_ONLY = "every block is a mixture of experts in what a KerasHub config is read as " \
               "(QwenMoeBackbone applies mlp_only_layers and decoder_sparse_step to block 0 " \
               "in every block)"
MAPPING = family_table(
    "qwen_moe", hf="Qwen2MoeForCausalLM", keras="QwenMoeBackbone", model_type="qwen2_moe",
    fields=(
        *DECODER_FIELDS,
        *QWEN_MOE_FIELDS,
        Field("d_fs", keras="shared_expert_intermediate_dim", hf="shared_expert_intermediate_size"),
        # the dense blocks' width: no weight while every block is sparse (absent: d_fs, the
        # formula's default, as the published config sets it)
        FFN,
        # QwenMoeBackbone has no head_dim argument: d_k = d_e/M, which a config may only restate
        HF_HEAD_DIM_IMPLIED,
        TIED_NO,
        Field("L_moe", stack=MOE_AND_DENSE, options={
            "decoder_sparse_step": "decoder_sparse_step", "mlp_only_layers": "mlp_only_layers",
            "num_experts": "num_experts"}),
    ),
    restrictions=(
        Sets("qkv_bias", True, why="Qwen1.5-MoE's query, key and value projections have biases"),
        *dense_block_rows(_dense_blocks),
        Requires("qkv_bias", (True,), why="KerasHub's Qwen MoE query, key and value have biases"),
        Requires("mlp_only_layers", ([],), binds="keras", why=_SPARSE_ONLY),
        Requires("decoder_sparse_step", (1,), binds="keras", why=_SPARSE_ONLY),
    ),
    free=QWEN_FREE | {
        "norm_topk_prob", "output_router_logits", "router_aux_loss_coef", "norm_top_k_prob",
        "use_sliding_window_attention", "router_aux_loss_coefficient",
    },
)

# Qwen2MoeForCausalLM's names: Qwen 2's attention and norms; in a sparse block's ``mlp`` the
# router ``gate``, the routed experts as two stacked tensors (gate_up_proj: E × 2·d_fe × d_e,
# down_proj), the shared SwiGLU expert and its one-output gate. A dense block's ``mlp`` holds
# gate_proj, up_proj, down_proj directly (the lookahead keeps the shared expert's out of it).
TRANSFORMERS = Transformers(restrictions=(
    *LLAMA_ROTARY_VALIDATED,
), weights={
    **without_ffn(LLAMA_TRANSFORMERS.weights), **QWEN_MOE_NAMES, **QWEN_SHARED_EXPERT_NAMES,
    **QWEN_DENSE_FFN_NAMES,
})

register(keras_hub_backbone(
    "qwen_moe",
    formula=backbone("qwen_moe", BLOCKS),
    required=(v, d_e, M, M_kv, L, E, d_fe, d_fs),
    # The published config sets the dense width (intermediate_size) to the shared expert's.
    optional={k_act: 4, tied: 0, L_moe: L, d_f: d_fs},
    restrictions=(
        split_heads("QwenMoeBackbone", "the width"),
        *SPARSE_AND_DENSE,
        HEADS_SPLIT_WIDTH,
        GQA,
        ROUTED_TO_AT_MOST_ALL,
        *Holds.each(MOE_AND_DENSE.constraints()),
    ),
    reference="reference_models.qwen_moe:backbone",
    mapping=MAPPING,
    transformers=TRANSFORMERS,
))
