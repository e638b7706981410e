"""GPT-2 (Radford et al. 2019) as KerasHub builds it: GPT2Backbone and GPT2CausalLM."""

from __future__ import annotations

from paramcount.components import decoder_block, embedding, layer_norm, position_embedding
from paramcount.components.basic import EVEN_HEADS
from paramcount.formula import group, zero
from paramcount.hparams import Divisible
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, d_e, d_f, n, v, zeta

_BACKBONE = (
    group(
        "embeddings",
        embedding("token", v, match="token_embedding"),
        position_embedding(n),
    ),
    decoder_block(times=L),
    layer_norm("final_norm", match="layer_norm"),
)

_COMMON = dict(
    required=(v, n, d_e, M, d_f, L),
    fixed={**EVEN_HEADS, zeta: 1},
    constraints=(Divisible(d_e, M),),
    presets=("gpt2", "gpt3"),
    family="keras_hub",
    examples={"tiny": dict(v=100, n=16, d_e=32, M=4, d_f=64, L=2)},
)

register(Architecture(
    id="gpt2",
    title="GPT-2 backbone (keras_hub.models.GPT2Backbone)",
    source="Radford et al. 2019; keras_hub/src/models/gpt2/gpt2_backbone.py",
    formula=group("gpt2", *_BACKBONE),
    reference="reference_models.gpt2:backbone",
    counting="trainable weights of the backbone: embeddings, L pre-LN decoder blocks, final norm; "
             "no LM head",
    keras_hub_metadata=True,
    **_COMMON,
))

register(Architecture(
    id="gpt2_causal_lm",
    title="GPT-2 causal LM (keras_hub.models.GPT2CausalLM): backbone + tied LM head",
    source="Radford et al. 2019; keras_hub/src/models/gpt2/gpt2_causal_lm.py",
    formula=group(
        "gpt2_causal_lm",
        *_BACKBONE,
        zero("head", "tied: the output projection is the token embedding, transposed (counted once)",
             kind="head"),
    ),
    reference="reference_models.gpt2:causal_lm",
    counting="trainable weights of backbone and LM head; the head is the token embedding reused "
             "(tied), counted once",
    **_COMMON,
))
