"""DistilBERT (Sanh et al. 2019) as KerasHub builds it: DistilBertBackbone.

BERT halved in depth, with the segment embeddings and the pooler removed: token and
learned-position tables, an embedding layer norm, L post-LN encoder blocks.
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.restrictions import Holds
from paramcount.core.symbols import L
from paramcount.families._defaults import family_table
from paramcount.families._encoders import learned_positions_backbone
from paramcount.families._encoders import learned_positions_family
from paramcount.families._lineages import POSITIONS_512
from paramcount.families._lineages import TINY_AND_ODD_N
from paramcount.families._lineages import VOCAB
from paramcount.families._lineages import mlm_names
from paramcount.families._lineages import pinned
from paramcount.model.components.basic import WHOLE_HEADS
from paramcount.model.components.encoders import encoder_stack
from paramcount.model.components.encoders import mlm_decoder
from paramcount.model.components.encoders import mlm_head
from paramcount.model.components.encoders import token_position_embeddings
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("distil_bert", "distil_bert_masked_lm")  # the ids this folder registers


# symbol ↔ DistilBertBackbone argument ↔ DistilBertConfig key (HF's hidden_dim is the
# feed-forward width, KerasHub's the model width).
MAPPING = family_table(
    "distil_bert", hf="DistilBertModel", keras="DistilBertBackbone", model_type="distilbert",
    fields=(
        VOCAB,
        Field("L", keras="num_layers", hf="n_layers"),
        Field("M", keras="num_heads", hf="n_heads"),
        Field("d_e", keras="hidden_dim", hf="dim"),
        Field("d_f", keras="intermediate_dim", hf="hidden_dim"),
        POSITIONS_512,
    ),
    tasks={"DistilBertForMaskedLM": "distil_bert_masked_lm"},
    restrictions=pinned((
        "tie_word_embeddings", True, "DistilBERT's masked-LM decoder is the token table transposed (tied)",
        "DistilBertForMaskedLM's projector counts only as the token embedding, tied")),
)

_HF = {
    "embeddings.token": "embeddings/word_embeddings",
    "embeddings.position": "embeddings/position_embeddings",
    "embeddings.norm": "embeddings/LayerNorm",
    "blocks": r"transformer/layer/\d+",
    "blocks.attention": "attention",
    "blocks.attention.query": "q_lin",
    "blocks.attention.key": "k_lin",
    "blocks.attention.value": "v_lin",
    "blocks.attention.output": "out_lin",
    "blocks.norm_1": "sa_layer_norm",
    "blocks.ffn.up": "ffn/lin1",
    "blocks.ffn.down": "ffn/lin2",
    "blocks.norm_2": "output_layer_norm",
}
# DistilBERT's TransformerBlock refuses a width the heads do not split ("config.n_heads must
# divide config.dim evenly"); KerasHub floors the head width
_HF_CONSTRAINTS = (WHOLE_HEADS,)

# The settings this family's architectures share; each call adds (or overrides) the rest.
_architecture = learned_positions_family(
    "DistilBERT",
    presets="distil_bert",
    examples=TINY_AND_ODD_N,
    mapping=MAPPING,
)

register(learned_positions_backbone(
    _architecture, "distil_bert", token_position_embeddings(), encoder_stack(L),
    transformers=Transformers(caches=False, weights=_HF, restrictions=(
        *Holds.each(_HF_CONSTRAINTS, binds="transformers",
            why="DistilBERT's TransformerBlock refuses a width the heads do not split ('config.n_heads must divide "
                "config.dim evenly'); KerasHub floors"),
    )),
))

register(_architecture(
    id="distil_bert_masked_lm",
    formula=group("distil_bert_masked_lm", token_position_embeddings(), encoder_stack(L),
                  mlm_head()),
    reference="reference_models.distil_bert:masked_lm",
    transformers=Transformers(caches=False, weights={
        **_HF, **mlm_names("vocab_transform|vocab_layer_norm|vocab_projector", "vocab_transform",
                           "vocab_layer_norm", "vocab_projector/bias", "vocab_projector/weight"),
    }, deltas=(mlm_decoder(),), restrictions=(
        *Holds.each(_HF_CONSTRAINTS, binds="transformers",
            why="DistilBERT's TransformerBlock refuses a width the heads do not split ('config.n_heads must divide "
                "config.dim evenly'); KerasHub floors"),
    )),
))
