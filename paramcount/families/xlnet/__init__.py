"""XLNet (Yang et al. 2019) as KerasHub builds it: XLNetBackbone.

Transformer-XL blocks for two-stream permutation language modelling. Positions are relative and
sinusoidal (computed, not learned); each layer projects them with its own d_e → M·d_k matrix
(``encoding``) and learns, per head, three bias vectors (content, position, segment: Transformer-
XL's u and v, and XLNet's segment bias) and a 2-row segment encoding (same / different segment).
The four attention projections carry no bias. The query stream starts from one learned mask
embedding of width d_e.
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Holds
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import v
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._defaults import not_formulated
from paramcount.families._lineages import HEADS_FIT_WIDTH
from paramcount.families._lineages import HEADS_N_HEAD
from paramcount.families._lineages import KERAS_FLOORED_HEADS
from paramcount.families._lineages import LAYERS_N_LAYER
from paramcount.families._lineages import TINY_AND_ODD
from paramcount.families._lineages import VOCAB
from paramcount.families._lineages import WIDTH_D_MODEL
from paramcount.model.components import attention
from paramcount.model.components import embedding
from paramcount.model.components import feed_forward
from paramcount.model.components import layer_norm
from paramcount.model.components import sinusoidal_positions
from paramcount.model.components.basic import WHOLE_HEADS
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("xlnet",)  # the ids this folder registers


# symbol ↔ XLNetBackbone argument ↔ XLNetConfig key (d_head, when given, must be d_e/M, as
# transformers also insists).
MAPPING = family_table(
    # XLNetLMHeadModel (the published checkpoints) adds an LM head bias KerasHub's backbone does
    # not have: refused by name.
    "xlnet", hf="XLNetModel", keras="XLNetBackbone",
    fields=(
        VOCAB, LAYERS_N_LAYER, HEADS_N_HEAD, WIDTH_D_MODEL,
        Field("d_f", keras="intermediate_dim", hf="d_inner"),
        Field("d_k", hf="d_head"),
    ),
)

register(keras_hub_backbone(
    "xlnet",
    formula=group(
        "xlnet",
        group(
            "embeddings",
            embedding("token", v, match="word_embedding"),
            leaf("mask", d_e, match="mask_emb", kind="embedding",
                 note="the query stream's learned start vector (two-stream attention)"),
            sinusoidal_positions(),
        ),
        group(
            "blocks",
            attention(match="rel_attn", bias=0),
            leaf("position_projection", d_e * M * d_k, match="rel_attn/encoding", kind="attention",
                 note="projects the sinusoidal relative encodings, d_e → M·d_k, no bias"),
            leaf("attention_biases", 3 * M * d_k, kind="attention",
                 match="(content|positional|segment)_attention_bias",
                 note="per-head content (u), position (v) and segment biases"),
            leaf("segment_encoding", 2 * M * d_k, match="segment_encoding", kind="attention",
                 note="two per-head vectors: same segment, different segment"),
            layer_norm("norm_1", match="layer_norm_rel_attn"),
            feed_forward(),
            layer_norm("norm_2", match="layer_norm_ff"),
            times=L,
            match=r"xlnet_encoder_\d+",
        ),
    ),
    required=(v, d_e, M, d_f, L),
    restrictions=(
        *KERAS_FLOORED_HEADS,
        HEADS_FIT_WIDTH,
    ),
    keras_hub_metadata=False,
    mapping=MAPPING,
    transformers=Transformers(caches=False,
        restrictions=(
            Holds(WHOLE_HEADS, binds="transformers",
                why="XLNetConfig refuses a width the heads do not split ('d_model % n_head' should be equal to 0); "
                    "KerasHub floors the head width"),
            Holds(Divisible(d_e, 2), binds="forward",
                why="XLNet's relative sinusoidal encodings are 2·⌈d_e/2⌉ wide (torch.arange(0, "
                    "d_model, 2)): a forward needs an even d_e (no build does)"),
        ),
        weights={
            "embeddings.token": "word_embedding",
            "embeddings.mask": "mask_emb",
            "blocks": r"layer/\d+",
            "blocks.attention": "rel_attn",
            "blocks.attention.query": "q",
            "blocks.attention.key": "k",
            "blocks.attention.value": "v",
            "blocks.attention.output": "o",
            "blocks.position_projection": "rel_attn/r",
            "blocks.attention_biases": "r_r_bias|r_s_bias|r_w_bias",
            "blocks.segment_encoding": "seg_embed",
            "blocks.norm_1": "rel_attn/layer_norm",
            "blocks.ffn.up": "layer_1",
            "blocks.ffn.down": "layer_2",
            "blocks.norm_2": "ff/layer_norm",
        },
    ),
    examples=TINY_AND_ODD,
))

# memory and compute: what the trees do not formulate yet (frameworks.unformulated). The KV
# cache is formulated: XLNetModel returns no transformers cache (``caches=False``: its ``mems``
# are hidden states, not a Cache, and none in the training mode the measurement builds in).
register(not_formulated(
    "xlnet",
    flops=(
        "XLNet's relative attention computes in its own einsums, all counted at its module: "
        "L·(2·B·T·(6·d_e·M·d_k + 4·T·M·d_k) − 2·B·M·d_k·(2 − min(T, 2))) (q, k, v, o; 2T relative "
        "encodings projected; content scores, position scores over 2T, values; at T = 1 torch "
        "multiplies the content scores elementwise, uncounted) was measured equal to "
        "FlopCounterMode's total for T = 1 to 40, B = 1 to 3 at two sets, but the measurement "
        "(reference_models.hf_costs._flop_weights) attributes it by divisibility: where the count "
        "divides among the module's 3-axis parameters (q, k, v, o, r: d_e × M × d_k; seg_embed: "
        "2 × M × d_k) as experts' would (T = 6, 27, 33 at the tiny set, B = 2), it is split "
        "among them, elsewhere it sits at rel_attn/scores: no tree claims both"
    ),
), replace=True)
