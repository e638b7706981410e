"""BLOOM (BigScience 2022) as KerasHub builds it: keras_hub.models.BloomBackbone.

Token embedding followed by a layer norm (BLOOM's embedding norm), ALiBi instead of position
embeddings (no parameters), L pre-LN blocks with biases on every projection, a final layer norm.
"""

from __future__ import annotations

from paramcount.components.basic import EVEN_HEADS
from paramcount.components.decoders import alibi_decoder
from paramcount.hparams import Divisible
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, d_e, d_f, v, zeta

register(Architecture(
    id="bloom",
    title="BLOOM backbone (keras_hub.models.BloomBackbone): ALiBi, embedding layer norm",
    source="BigScience Workshop 2022, 'BLOOM: A 176B-Parameter Open-Access Multilingual "
           "Language Model'; keras_hub/src/models/bloom/bloom_{backbone,decoder,attention}.py",
    formula=alibi_decoder(
        "bloom", embedding_norm="embedding_layernorm", attention_match="self_attention",
        norm_names=("pre_attention_layernorm", "post_attention_layernorm"),
        ffn_names=("mlp_intermediate_dense", "mlp_output_dense")),
    required=(v, d_e, M, d_f, L),
    fixed={**EVEN_HEADS, zeta: 1},
    # BloomAttention refuses a d_e that M does not divide.
    constraints=(Divisible(d_e, M),),
    reference="reference_models.bloom:backbone",
    counting="trainable weights of the backbone: token embedding and its norm, L pre-LN blocks, "
             "final norm; no LM head (BloomCausalLM ties it to the token embedding)",
    presets="bloom",
    keras_hub_metadata=True,
    family="keras_hub",
    examples={
        "tiny": dict(v=100, d_e=32, M=4, d_f=64, L=2),
        "odd_sizes": dict(v=997, d_e=45, M=5, d_f=13, L=3),
    },
))
