"""BART (Lewis et al. 2020) as KerasHub builds it: BartBackbone.

A post-LN encoder-decoder with L layers on each side: one token table shared by both stacks,
separate learned position tables (n each) and embedding norms for encoder and decoder, decoder
blocks with cross-attention over the encoder output, biases everywhere. The LM head of
BartSeq2SeqLM is the token embedding, transposed (tied), so the backbone is the whole model.
"""

from __future__ import annotations

from paramcount.core.formula import Term
from paramcount.core.formula import group
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import n
from paramcount.core.symbols import v
from paramcount.core.symbols import zeta
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import HEADS_FIT_WIDTH
from paramcount.families._lineages import HF_LAYERS
from paramcount.families._lineages import KERAS_FLOORED_HEADS
from paramcount.families._lineages import TINY_AND_ODD_N
from paramcount.families._lineages import VOCAB
from paramcount.families._lineages import WIDTH_D_MODEL
from paramcount.families._lineages import pinned
from paramcount.model.components import decoder_block
from paramcount.model.components import embedding
from paramcount.model.components import layer_norm
from paramcount.model.components import position_embedding
from paramcount.model.components.basic import WHOLE_HEADS
from paramcount.model.components.encoders import encoder_stack
from paramcount.model.cost import without_cache
from paramcount.model.frameworks import Delta
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("bart",)  # the ids this folder registers


# symbol ↔ BartBackbone argument ↔ BartConfig key. The formula has one depth, width and head
# count for both stacks: each HF key of a stack (and the num_hidden_layers alias published configs
# carry, which KerasHub's converter reads) must agree.
# (Whisper's table starts with the same rows: its stacks are BART's in this respect.)
ENCODER_DECODER_FIELDS = (
    VOCAB,
    Field("L", keras="num_layers", hf="encoder_layers"),
    Field("L", hf="decoder_layers"),
    HF_LAYERS,
    Field("M", keras="num_heads", hf="encoder_attention_heads"),
    Field("M", hf="decoder_attention_heads"),
    WIDTH_D_MODEL,
    Field("d_f", keras="intermediate_dim", hf="encoder_ffn_dim"),
    Field("d_f", hf="decoder_ffn_dim"),
)
MAPPING = family_table(
    # BartForConditionalGeneration's lm_head is the shared table (tied) and its final_logits_bias
    # a buffer (not trainable): its trainable weights are BartModel's.
    "bart", hf=("BartModel", "BartForConditionalGeneration"), keras="BartBackbone",
    fields=(
        *ENCODER_DECODER_FIELDS,
        Field("n", keras="max_sequence_length", hf="max_position_embeddings", keras_default=1024),
    ),
    restrictions=pinned((
        "tie_word_embeddings", True, "BartSeq2SeqLM's LM head is the shared token table, transposed (tied)",
        "the LM head counts only as the shared token table, tied")),
)


def _positions(stack: str) -> Delta:
    return Delta(
        f"{stack}.positions",
        embedding("positions", n + 2, note="learned absolute positions, n + 2 rows (fairseq's "
                                           "offset of 2, kept by BartLearnedPositionalEmbedding)"),
        "transformers' BartLearnedPositionalEmbedding keeps fairseq's 2 extra rows; KerasHub's "
        "converter trims them")


_STACK = {
    "blocks.self_attention": "self_attn",
    "blocks.self_attention.query": "q_proj",
    "blocks.self_attention.key": "k_proj",
    "blocks.self_attention.value": "v_proj",
    "blocks.self_attention.output": "out_proj",
    "blocks.attention": "self_attn",
    "blocks.attention.query": "q_proj",
    "blocks.attention.key": "k_proj",
    "blocks.attention.value": "v_proj",
    "blocks.attention.output": "out_proj",
    "blocks.norm_1": "self_attn_layer_norm",
    "blocks.cross_attention": "encoder_attn",
    "blocks.cross_attention.query": "q_proj",
    "blocks.cross_attention.key": "k_proj",
    "blocks.cross_attention.value": "v_proj",
    "blocks.cross_attention.output": "out_proj",
    "blocks.norm_cross": "encoder_attn_layer_norm",
    "blocks.ffn.up": "fc1",
    "blocks.ffn.down": "fc2",
    "blocks.norm_2": "final_layer_norm",
}
_ENCODER_ONLY = ("blocks.self_attention", "blocks.cross_attention", "blocks.norm_cross")
_HF = {
    "token_embedding": "shared",
    "encoder": "encoder",
    "encoder.positions": "embed_positions",
    "encoder.embedding_norm": "layernorm_embedding",
    "encoder.blocks": r"layers/\d+",
    **{f"encoder.{k}": p for k, p in _STACK.items() if not k.startswith(_ENCODER_ONLY)},
    "decoder": "decoder",
    "decoder.positions": "embed_positions",
    "decoder.embedding_norm": "layernorm_embedding",
    "decoder.blocks": r"layers/\d+",
    **{f"decoder.{k}": p for k, p in _STACK.items() if not k.startswith("blocks.attention")},
}


def _side(side: str, stack: Term) -> Term:
    """The encoder or decoder (``side``): its own learned positions and embedding norm, then its
    ``stack`` of L blocks."""
    return group(side,
                 position_embedding(n, match=f"{side}_position_embedding", name="positions"),
                 layer_norm("embedding_norm", match=f"{side}_embeddings_layer_norm"),
                 stack)


register(keras_hub_backbone(
    "bart",
    mapping=MAPPING,
    formula=group(
        "bart",
        embedding("token_embedding", v, match="token_embedding",
                  note="v × d_e table shared by encoder and decoder (and the tied LM head)"),
        # the encoder caches nothing: its positions attend both ways
        _side("encoder", without_cache(encoder_stack(L, match=r"transformer_encoder_layer_\d+"))),
        _side("decoder", decoder_block(times=L, cross_attention=True,
                                       match=r"transformer_decoder_layer_\d+")),
    ),
    required=(v, n, d_e, M, d_f, L),
    restrictions=(
        *KERAS_FLOORED_HEADS,
        Fixed(zeta, 1, why="BART has biases on its query, key, value and output projections"),
        HEADS_FIT_WIDTH,
    ),
    # BartAttention refuses a width the heads do not split ("embed_dim must be divisible by
    # num_heads"); KerasHub floors the head width
    transformers=Transformers(weights=_HF, deltas=(_positions("encoder"), _positions("decoder")),
                              restrictions=(
                                  Holds(WHOLE_HEADS, binds="transformers",
                                      why="BartAttention refuses a width the heads do not split ('embed_dim must "
                                          "be divisible by num_heads'); KerasHub floors instead"),
                              )),
    examples=TINY_AND_ODD_N,
))
