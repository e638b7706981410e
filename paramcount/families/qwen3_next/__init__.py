"""Qwen3-Next (Qwen Team 2025, "Qwen3-Next-80B-A3B"), as transformers builds it:
Qwen3NextForCausalLM. KerasHub has no Qwen3-Next, so transformers is the reference.

The formula is Qwen 3.5 MoE's (its components, shared): hybrid blocks of gated DeltaNet linear
attention in three of four (its causal convolution, output gate z, β and decay inputs, per-head
A and time-step bias, gated RMS norm) and gated full attention in the fourth (QK norm, the query
projection also producing a sigmoid output gate), every feed-forward a mixture of E routed SwiGLU
experts of width d_fe (k per token) beside a shared SwiGLU expert of width d_fs scaled by a
sigmoid gate d_e → 1. transformers holds DeltaNet's q, k, v and z in one ``in_proj_qkvz`` and β
and the decay input in one ``in_proj_ba``: the same weights, fused.
"""

from __future__ import annotations

import dataclasses

from paramcount.core.formula import FUSED
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.families._decoders import hf_causal_lm
from paramcount.families._defaults import family_table
from paramcount.families.qwen3_5 import HYBRID_FIELDS
from paramcount.families.qwen3_5 import HYBRID_FREE
from paramcount.families.qwen3_5 import HYBRID_REQUIRES
from paramcount.families.qwen3_5_moe import HYBRID_MOE_EXAMPLES
from paramcount.families.qwen3_5_moe import MAPPING as QWEN3_5_MOE_MAPPING
from paramcount.families.qwen3_5_moe import TRANSFORMERS as QWEN3_5_MOE_TRANSFORMERS
from paramcount.families.qwen3_5_moe import hybrid_moe
from paramcount.model.frameworks import Transformers
from paramcount.model.registry import register

IDS = ("qwen3_next",)  # the ids this folder registers


_SPARSE_ONLY = ("every block is a mixture of experts (Qwen3-Next's published models; dense "
                "blocks among them are not formulated here)")

# Qwen 3.5 MoE's fields, as transformers spells them (no KerasHub argument: KerasHub cannot
# build it). The MoE fields after the hybrid ones.
MAPPING = family_table(
    "qwen3_next", hf="Qwen3NextForCausalLM",
    fields=tuple(dataclasses.replace(f, keras=None, keras_default=None)
                 for f in (*HYBRID_FIELDS, *QWEN3_5_MOE_MAPPING.fields[len(HYBRID_FIELDS):])),
    restrictions=(
        Sets("attention_bias", False, why="Qwen3-Next's attention has no biases"),
        Sets("decoder_sparse_step", 1, why="every Qwen3-Next block is sparse (step 1)"),
        Sets("mlp_only_layers", [], why="every Qwen3-Next block is sparse (no dense-only blocks)"),
        *Requires.each(r for r in HYBRID_REQUIRES if r.framework == "hf"),
        Requires("decoder_sparse_step", (1,), why=_SPARSE_ONLY),
        Requires("mlp_only_layers", ([],), why=_SPARSE_ONLY),
    ),
    # mtp_*: the checkpoint's multi-token-prediction layer, which Qwen3NextForCausalLM does not
    # build (not counted: the count is of the model transformers builds)
    free=HYBRID_FREE | {"output_router_logits", "router_aux_loss_coef", "norm_topk_prob",
                        "intermediate_size", "mtp_num_hidden_layers",
                        "mtp_use_dedicated_embeddings", "use_sliding_window", "sliding_window"},
)

# Qwen 3.5 MoE's transformers names, with DeltaNet's fused input projections.
TRANSFORMERS = Transformers(weights={
    **QWEN3_5_MOE_TRANSFORMERS.weights,
    "blocks.linear_attention.qkv": ("in_proj_qkvz", FUSED),
    "blocks.linear_attention.z_gate": ("in_proj_qkvz", FUSED),
    "blocks.linear_attention.beta": ("in_proj_ba", FUSED),
    "blocks.linear_attention.decay": ("in_proj_ba", FUSED),
})

register(hf_causal_lm(
    "qwen3_next",
    **hybrid_moe("qwen3_next"),
    mapping=MAPPING,
    transformers=TRANSFORMERS,
    # Qwen 3.5 MoE's, the odd one with an even head width
    examples={**HYBRID_MOE_EXAMPLES, "tiny_odd_tied": dict(HYBRID_MOE_EXAMPLES["tiny_odd_tied"], d_k=6)},
))
