"""BERT (Devlin et al. 2019) as KerasHub builds it: BertBackbone and BertMaskedLM."""

from __future__ import annotations

from paramcount.components import dense, embedding, encoder_block, layer_norm, position_embedding
from paramcount.components.basic import EVEN_HEADS
from paramcount.formula import group, leaf
from paramcount.hparams import Divisible
from paramcount.registry import Architecture, register
from paramcount.symbols import L, M, d_e, d_f, n, s, v, zeta

_BACKBONE = (
    group(
        "embeddings",
        embedding("token", v, match="token_embedding"),
        position_embedding(n),
        embedding("segment", s, match="segment_embedding"),
        layer_norm("norm", match="embeddings_layer_norm"),
    ),
    encoder_block(times=L),
    dense("pooler", d_e, d_e, match="pooled_dense", kind="head"),
)

_COMMON = dict(
    required=(v, n, d_e, M, d_f, L),
    optional={s: 2},
    fixed={**EVEN_HEADS, zeta: 1},
    constraints=(Divisible(d_e, M),),
    presets="bert",
    family="keras_hub",
    examples={"tiny": dict(v=100, n=16, d_e=32, M=4, d_f=64, L=2, s=3)},
)

register(Architecture(
    id="bert",
    title="BERT backbone (keras_hub.models.BertBackbone): segment embeddings and pooler included",
    source="Devlin et al. 2019; keras_hub/src/models/bert/bert_backbone.py",
    formula=group("bert", *_BACKBONE),
    reference="reference_models.bert:backbone",
    counting="trainable weights of the backbone: token, position and segment embeddings, "
             "embedding norm, L post-LN encoder blocks, pooler",
    keras_hub_metadata=True,
    **_COMMON,
))

register(Architecture(
    id="bert_masked_lm",
    title="BERT masked LM (keras_hub.models.BertMaskedLM): backbone + MLM head (paper's num_params_BERT)",
    source="Devlin et al. 2019; Saleh & Paquelet 2024; keras_hub/src/models/bert/bert_masked_lm.py",
    formula=group(
        "bert_masked_lm",
        *_BACKBONE,
        group(
            "mlm_head",
            dense("transform", d_e, d_e, match="intermediate_dense"),
            layer_norm("norm", match="intermediate_layer_norm"),
            leaf("output_bias", v, match="output_bias",
                 note="the output projection is the token embedding (tied); only its bias is new"),
            match="mlm_head",
            kind="head",
        ),
    ),
    reference="reference_models.bert:masked_lm",
    counting="trainable weights of backbone (pooler included) and MLM head; the head's output "
             "projection is the token embedding (tied), counted once",
    **_COMMON,
))
