"""Falcon as KerasHub builds it: keras_hub.models.FalconBackbone.

KerasHub implements the Falcon-RW layout (Penedo et al. 2023, the RefinedWeb models): a token
embedding, ALiBi (no parameters), L *sequential* pre-LN blocks with full multi-head attention and
biases on every projection, a final layer norm. The larger Falcon models' parallel attention+MLP
and multi-query attention are not in KerasHub's FalconBackbone (its constructor has no option for
either), so they are not formulated here.
"""

from __future__ import annotations

from paramcount.components.basic import EVEN_HEADS
from paramcount.components.decoders import alibi_decoder
from paramcount.hparams import Divisible
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, d_e, d_f, v, zeta

register(Architecture(
    id="falcon",
    title="Falcon backbone (keras_hub.models.FalconBackbone): Falcon-RW layout, ALiBi",
    source="Penedo et al. 2023, 'The RefinedWeb Dataset for Falcon LLM' (Falcon-RW); "
           "keras_hub/src/models/falcon/falcon_{backbone,transformer_decoder,attention}.py",
    formula=alibi_decoder(
        "falcon", embedding_norm=None, attention_match="attention",
        norm_names=("input_layernorm", "post_attention_layernorm"),
        ffn_names=("dense_h_to_4h", "dense_4h_to_h")),
    required=(v, d_e, M, d_f, L),
    fixed={**EVEN_HEADS, zeta: 1},
    # Falcon's attention output is d_e → d_e whatever the heads (prove refutes a floor there).
    constraints=(Divisible(d_e, M),),
    reference="reference_models.falcon:backbone",
    counting="trainable weights of the backbone: token embedding, L pre-LN blocks, final norm; "
             "no LM head (FalconCausalLM ties it to the token embedding)",
    presets="falcon",
    keras_hub_metadata=True,
    family="keras_hub",
    examples={
        "tiny": dict(v=100, d_e=32, M=4, d_f=64, L=2),
        "odd_sizes": dict(v=997, d_e=45, M=5, d_f=13, L=3),
    },
))
