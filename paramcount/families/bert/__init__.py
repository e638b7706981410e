"""BERT (Devlin et al. 2019) as KerasHub builds it: BertBackbone and BertMaskedLM."""

from __future__ import annotations

import dataclasses

from paramcount.core.formula import group
from paramcount.core.formula import zero
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import L
from paramcount.core.symbols import d_e
from paramcount.core.symbols import s
from paramcount.families._defaults import family_table
from paramcount.families._encoders import learned_positions_backbone
from paramcount.families._encoders import learned_positions_family
from paramcount.families._lineages import ABSOLUTE_POSITIONS
from paramcount.families._lineages import ENCODER_FIELDS
from paramcount.families._lineages import POSITIONS_512
from paramcount.families._lineages import SEGMENTS
from paramcount.families._lineages import absolute_positions
from paramcount.families._lineages import encoder_only
from paramcount.families._lineages import mlm_names
from paramcount.families._lineages import no_cross_attention
from paramcount.model.components import dense
from paramcount.model.components import encoder_block
from paramcount.model.components.basic import WHOLE_HEADS
from paramcount.model.components.encoders import mlm_decoder
from paramcount.model.components.encoders import mlm_head
from paramcount.model.components.encoders import token_position_embeddings
from paramcount.model.frameworks import Delta
from paramcount.model.frameworks import Transformers
from paramcount.model.registry import get as _registered
from paramcount.model.registry import register

IDS = ("bert", "bert_masked_lm", "bert_pretraining")  # the ids this folder registers


_BACKBONE = (
    token_position_embeddings(segments=s),
    encoder_block(times=L),
    dense("pooler", d_e, d_e, match="pooled_dense", kind="head").with_cost(tokens=1),
)

# symbol ↔ BertBackbone argument ↔ BertConfig key.
# BertConfig's keys that change no count (RobertaConfig and XLMRobertaConfig: the same)
ENCODER_FREE = frozenset({
    "hidden_act", "hidden_dropout_prob", "attention_probs_dropout_prob", "layer_norm_eps",
    "classifier_dropout", "gradient_checkpointing", "is_decoder", "dropout",
})

MAPPING = family_table(
    "bert", hf="BertModel", keras="BertBackbone",
    tasks={"BertForMaskedLM": "bert_masked_lm", "BertForPreTraining": "bert_pretraining"},
    fields=(*ENCODER_FIELDS, POSITIONS_512, SEGMENTS),
    restrictions=(
        absolute_positions("BERT"),
        *encoder_only("BertBackbone"),
        Sets("tie_word_embeddings", True, why="BertMaskedLM's decoder is the token table transposed (tied)"),
        Requires(
            "tie_word_embeddings",
            (True,),
            why="BertForMaskedLM's decoder counts only as the token embedding, tied",
        ),
        ABSOLUTE_POSITIONS,
        no_cross_attention("BERT"),
    ),
    free=ENCODER_FREE,
)

# PyTorch names of BertModel's encoder blocks (RobertaModel's, XLMRobertaModel's and
# ElectraModel's: the same)
HF_BLOCKS = {
    "blocks": r"encoder/layer/\d+",
    "blocks.attention": "attention",
    "blocks.attention.query": "self/query",
    "blocks.attention.key": "self/key",
    "blocks.attention.value": "self/value",
    "blocks.attention.output": "output/dense",
    "blocks.norm_1": "attention/output/LayerNorm",
    # the feed-forward's output is ``layer.i.output``, the attention's ``attention.output``
    "blocks.ffn.up": "intermediate/dense",
    "blocks.ffn.down": r"\d+/output/dense",
    "blocks.norm_2": r"\d+/output/LayerNorm",
}
# and of the whole BertModel (RobertaModel and XLMRobertaModel: the same)
HF_ENCODER = {
    "embeddings": "embeddings",
    "embeddings.token": "word_embeddings",
    "embeddings.position": "position_embeddings",
    "embeddings.segment": "token_type_embeddings",
    "embeddings.norm": "LayerNorm",
    **HF_BLOCKS,
}
HF_POOLER = {"pooler": "pooler/dense"}
_HF_MLM = {**HF_ENCODER, **HF_POOLER, **mlm_names("cls/predictions", "transform/dense", "transform/LayerNorm")}
_HF_WHOLE_HEADS = (
    Holds(WHOLE_HEADS, binds="transformers",
        why="transformers' BertSelfAttention refuses a hidden size that is not a multiple of the heads; "
            "KerasHub floors instead"),
)

# The settings this family's architectures share; each call adds (or overrides) the rest.
_architecture = learned_positions_family(
    "BERT",
    optional={s: 2},
    presets="bert",
    examples={"tiny": dict(v=100, n=16, d_e=32, M=4, d_f=64, L=2, s=3)},
    mapping=MAPPING,
)

register(learned_positions_backbone(
    _architecture, "bert", *_BACKBONE,
    transformers=Transformers(caches=False, weights={**HF_ENCODER, **HF_POOLER}, restrictions=_HF_WHOLE_HEADS),
))

register(_architecture(
    id="bert_masked_lm",
    formula=group(
        "bert_masked_lm",
        *_BACKBONE,
        mlm_head(),
    ),
    reference="reference_models.bert:masked_lm",
    transformers=Transformers(caches=False, restrictions=_HF_WHOLE_HEADS, weights=_HF_MLM,
        deltas=(mlm_decoder(), Delta("pooler", zero("pooler", "transformers: BertForMaskedLM builds "
                                                "BertModel(add_pooling_layer=False), no pooler"),
                      "BertForMaskedLM has no pooler; KerasHub's BertMaskedLM keeps the "
                      "backbone's"),),
    ),
))

register(_architecture(
    id="bert_pretraining",
    formula=dataclasses.replace(_registered("bert_masked_lm").formula, name="bert_pretraining"),
    reference="reference_models.bert:masked_lm",
    transformers=Transformers(caches=False, weights={**_HF_MLM, "nsp_head": "cls/seq_relationship"},
        restrictions=_HF_WHOLE_HEADS,
        deltas=(mlm_decoder(),
                Delta("nsp_head", dense("nsp_head", d_e, 2, note="next-sentence classifier on "
                                                               "the pooled output", kind="head"
                                        ).with_cost(tokens=1),
                      "BertForPreTraining adds the next-sentence-prediction head (d_e → 2, with "
                      "bias), which KerasHub does not build"),),
    ),
))
