"""OPT (Zhang et al. 2022) as KerasHub builds it: keras_hub.models.OPTBackbone.

Token and learned position embeddings (``TokenAndPositionEmbedding``), L pre-LN
``TransformerDecoder`` blocks (biases on every projection, ReLU feed-forward) and a final layer
norm. KerasHub keeps ``n`` position rows; Hugging Face's OPT keeps ``n + 2`` (fairseq's offset).
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import n
from paramcount.core.symbols import v
from paramcount.core.symbols import zeta
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import HEADS
from paramcount.families._lineages import HEADS_FIT_WIDTH
from paramcount.families._lineages import KERAS_FLOORED_HEADS
from paramcount.families._lineages import LAYERS
from paramcount.families._lineages import TINY_AND_ODD_N
from paramcount.families._lineages import VOCAB
from paramcount.families._lineages import WIDTH
from paramcount.model.components import decoder_block
from paramcount.model.components import embedding
from paramcount.model.components import layer_norm
from paramcount.model.components.basic import WHOLE_HEADS
from paramcount.model.components.encoders import token_position_embeddings
from paramcount.model.frameworks import Delta
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("opt",)  # the ids this folder registers


# symbol ↔ OPTBackbone argument ↔ OPTConfig key. word_embed_proj_dim is d_e as well: where it
# differs (OPT-350m) HF adds project_in / project_out, which the formula does not have.
MAPPING = family_table(
    # OPTForCausalLM's lm_head is embed_tokens itself (tie_word_embeddings, required true), so
    # its configs count as the backbone.
    "opt", hf=("OPTModel", "OPTForCausalLM"), keras="OPTBackbone",
    fields=(
        VOCAB, LAYERS, HEADS, WIDTH,
        Field("d_e", hf="word_embed_proj_dim"),
        Field("d_f", keras="intermediate_dim", hf="ffn_dim"),
        Field("n", keras="max_sequence_length", hf="max_position_embeddings", keras_default=2048),
    ),
    restrictions=(
        Sets("tie_word_embeddings", True, why="OPT's LM head is the token embedding (tied)"),
        Sets("do_layer_norm_before", True, why="KerasHub's OPT is pre-LN (post-LN OPT-350m has no "
                                                "final norm in transformers)"),
        Sets("enable_bias", True, why="KerasHub's OPT has biases on every projection"),
        Sets("layer_norm_elementwise_affine", True, why="KerasHub's OPT layer norms have a scale and a shift"),
        Sets("_remove_final_layer_norm", False, why="KerasHub's OPT has a final layer norm"),
        Requires("do_layer_norm_before", (True,), why="post-LN OPT (OPT-350m) has no final layer norm in transformers"),
        Requires("_remove_final_layer_norm", (False,), why="the formula has a final layer norm"),
        Requires(
            "tie_word_embeddings",
            (True,),
            classes=("OPTForCausalLM",),
            why="OPTForCausalLM's head counts only when tied",
        ),
        Requires("enable_bias", (True,), why="the formula has biases on every projection"),
        Requires("layer_norm_elementwise_affine", (True,), why="the formula's layer norms are affine"),
    ),
)

register(keras_hub_backbone(
    "opt",
    formula=group(
        "opt",
        token_position_embeddings(norm=None, match="embeddings"),
        decoder_block(times=L),
        layer_norm("final_norm", match="layer_norm"),
    ),
    required=(v, n, d_e, M, d_f, L),
    restrictions=(
        *KERAS_FLOORED_HEADS,
        Fixed(zeta, 1, why="KerasHub's OPT has biases on every attention projection"),
        HEADS_FIT_WIDTH,
    ),
    mapping=MAPPING,
    transformers=Transformers(
        restrictions=(
            Holds(WHOLE_HEADS, binds="transformers",
                why="transformers' OPTAttention refuses an embed_dim the heads do not divide; KerasHub floors"),
        ),
        weights={
            "embeddings.token": "embed_tokens",
            "embeddings.position": "embed_positions",
            "blocks": r"layers/\d+",
            "blocks.self_attention": "self_attn",
            "blocks.self_attention.query": "q_proj",
            "blocks.self_attention.key": "k_proj",
            "blocks.self_attention.value": "v_proj",
            "blocks.self_attention.output": "out_proj",
            "blocks.norm_1": "self_attn_layer_norm",
            "blocks.ffn.up": "fc1",
            "blocks.ffn.down": "fc2",
            "blocks.norm_2": r"\d+/final_layer_norm",
            "final_norm": "decoder/final_layer_norm",
        },
        deltas=(Delta(
            "embeddings.position",
            embedding("position", n + 2, kind="position",
                      note="learned absolute positions, n + 2 rows (fairseq's offset of 2, kept "
                           "by OPTLearnedPositionalEmbedding)"),
            "transformers' OPTLearnedPositionalEmbedding keeps fairseq's 2 extra position rows"),),
    ),
    examples=TINY_AND_ODD_N,
))
