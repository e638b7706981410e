"""OPT (Zhang et al. 2022) as KerasHub builds it: keras_hub.models.OPTBackbone.

Token and learned position embeddings (``TokenAndPositionEmbedding``), L pre-LN
``TransformerDecoder`` blocks (biases on every projection, ReLU feed-forward) and a final layer
norm. KerasHub keeps ``n`` position rows; Hugging Face's OPT keeps ``n + 2`` (fairseq's offset).
"""

from __future__ import annotations

from paramcount.components import decoder_block, embedding, layer_norm, position_embedding
from paramcount.components.basic import EVEN_HEADS, HEADS_FIT
from paramcount.formula import group
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, d_e, d_f, n, v, zeta

register(Architecture(
    id="opt",
    title="OPT backbone (keras_hub.models.OPTBackbone)",
    source="Zhang et al. 2022, 'OPT: Open Pre-trained Transformer Language Models'; "
           "keras_hub/src/models/opt/opt_backbone.py",
    formula=group(
        "opt",
        group(
            "embeddings",
            embedding("token", v, match="token_embedding"),
            position_embedding(n),
            match="embeddings",
        ),
        decoder_block(times=L),
        layer_norm("final_norm", match="layer_norm"),
    ),
    required=(v, n, d_e, M, d_f, L),
    fixed={**EVEN_HEADS, zeta: 1},
    constraints=(HEADS_FIT,),
    reference="reference_models.opt:backbone",
    counting="trainable weights of the backbone: token and position embeddings, L pre-LN decoder "
             "blocks, final norm; no LM head (OPTCausalLM ties it to the token embedding)",
    presets="opt",
    keras_hub_metadata=True,
    family="keras_hub",
    examples={
        "tiny": dict(v=100, n=16, d_e=32, M=4, d_f=64, L=2),
        "odd_sizes": dict(v=997, n=7, d_e=45, M=5, d_f=13, L=3),
    },
))
