"""Mixtral (Jiang et al. 2024, "Mixtral of Experts") as KerasHub builds it: MixtralBackbone.

Mistral's block with the feed-forward replaced by a sparse mixture of E SwiGLU experts (each d_e →
d_f → d_e, no biases) and a bias-free router d_e → E; each token uses the top k experts. KerasHub
stores each expert projection of a block as one (E, ·, ·) tensor.
"""

from __future__ import annotations

from paramcount.components.llama_like import backbone, decoder_blocks, moe_swiglu
from paramcount.components.modern import k_act
from paramcount.hparams import Divisible, Relation
from paramcount.registry import Architecture, register
from paramcount.symbols import E, L, M, M_kv, d_e, d_f, d_k, v

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
    fixed={d_k: d_e / M},
    constraints=(Divisible(d_e, M), Divisible(M, M_kv),
                 Relation(k_act, "<=", E, reason="a token is routed to at most all experts")),
    reference="reference_models.mixtral:backbone",
    counting="trainable weights of the backbone: token embedding, L decoder blocks (router and E "
             "experts each), final RMS norm and the untied LM head KerasHub keeps in the "
             "backbone; active parameters count k of the E experts",
    presets="mixtral",
    keras_hub_metadata=True,
    family="keras_hub",
    examples={
        "tiny": dict(v=97, d_e=32, M=8, M_kv=2, d_f=48, L=2, E=4),
        "tiny_odd_top1": dict(v=31, d_e=21, M=3, M_kv=1, d_f=13, L=3, E=5, k=1),
        "tiny_all_experts": dict(v=11, d_e=8, M=2, M_kv=2, d_f=6, L=1, E=3, k=3),
    },
))
