"""BLOOM (BigScience 2022) as KerasHub builds it: keras_hub.models.BloomBackbone.

Token embedding followed by a layer norm (BLOOM's embedding norm), ALiBi instead of position
embeddings (no parameters), L pre-LN blocks with biases on every projection, a final layer norm.
"""

from __future__ import annotations

from paramcount.core.hparams import Divisible, Relation
from paramcount.core.restrictions import Fixed, Holds, Limit, Requires, Sets
from paramcount.core.symbols import L, M, d_e, d_f, v, zeta
from paramcount.families._lineages import HEADS_N_HEAD, LAYERS_N_LAYER, VOCAB, WIDTH
from paramcount.model.components.basic import EVEN_HEADS
from paramcount.model.components.decoders import alibi_decoder
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field, Table
from paramcount.model.registry import Architecture, register
from paramcount.model.weights import Named

IDS = ("bloom",)  # the ids this folder registers


# symbol ↔ BloomBackbone argument ↔ BloomConfig key. transformers has no key for the MLP width:
# BloomMLP is always 4·hidden_size wide (a config's ``n_inner`` is not read by it).
MAPPING = Table(
    fields=(
        VOCAB,
        LAYERS_N_LAYER,
        HEADS_N_HEAD,
        WIDTH,
        Field("d_f", keras="intermediate_dim", hf_default=4 * d_e),
    ),
    model_type="bloom",
    hf_classes={"BloomForCausalLM": "bloom"},
    keras_classes={"BloomBackbone": "bloom"},
    restrictions=(
        Sets("tie_word_embeddings", True, why="BLOOM's LM head is the token table transposed (tied)"),
        Requires(
            "tie_word_embeddings",
            (True,),
            why="BLOOM's LM head is the token embedding (tied), as in KerasHub's BloomCausalLM",
        ),
        Requires(
            "n_inner",
            (None,),
            why="transformers' BloomMLP ignores n_inner and is always "
                "4·hidden_size wide: a config setting it describes no model transformers builds",
        ),
    ),
    free=frozenset({
        "apply_residual_connection_post_layernorm", "attention_dropout", "hidden_dropout",
        "layer_norm_epsilon", "pretraining_tp", "slow_but_exact", "attention_softmax_in_fp32",
        "bias_dropout_fusion", "masked_softmax_fusion", "offset_alibi", "skip_bias_add",
        "skip_bias_add_qkv", "unk_token_id", "seq_length", "dropout",
    }),
)

# BloomForCausalLM's names (under ``transformer.``). Query, key and value are one fused
# query_key_value (3·d_e outputs, interleaved per head: q, k, v of head 1, then of head 2, ...);
# each third of it holds a projection's d_e² weights and d_e biases, which the slices claim. The
# LM head is the token embedding (tied), listed once.
TRANSFORMERS = Transformers(
    weights={
        "embeddings.token": "word_embeddings",
        "embeddings.norm": "word_embeddings_layernorm",
        "blocks": r"h/\d+",
        "blocks.norm_1": "input_layernorm",
        "blocks.attention": "self_attention",
        "blocks.attention.query": ("query_key_value", (0, 3)),
        "blocks.attention.key": ("query_key_value", (1, 3)),
        "blocks.attention.value": ("query_key_value", (2, 3)),
        "blocks.attention.output": "dense",
        "blocks.norm_2": "post_attention_layernorm",
        "blocks.ffn": "mlp",
        "blocks.ffn.up": "dense_h_to_4h",
        "blocks.ffn.down": "dense_4h_to_h",
        "final_norm": "ln_f",
    },
    restrictions=(
        Limit(
            Relation(d_f, "==", 4 * d_e,
            reason="transformers' BloomMLP is always 4·hidden_size wide"),
        ),
    ),
)

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
    restrictions=(
        *Fixed.each(EVEN_HEADS,
            why="KerasHub's attention layers make each head d_e // M wide (floored), keys and values alike"),
        Fixed(zeta, 1, why="BLOOM has biases on every attention projection"),
        Holds(Divisible(d_e, M), why="BloomAttention refuses a hidden size that the heads do not divide"),
    ),
    # BloomAttention refuses a d_e that M does not divide.
    reference=Named("reference_models.table:backbone", ("bloom",)),
    counting="trainable weights of the backbone: token embedding and its norm, L pre-LN blocks, "
             "final norm; no LM head (BloomCausalLM ties it to the token embedding)",
    presets="bloom",
    keras_hub_metadata=True,
    family="keras_hub",
    mapping=MAPPING,
    transformers=TRANSFORMERS,
    examples={
        "tiny": dict(v=100, d_e=32, M=4, d_f=64, L=2),
        "odd_sizes": dict(v=997, d_e=45, M=5, d_f=13, L=3),
        # transformers builds only d_f = 4·d_e: this one it checks too
        "tiny_4x": dict(v=61, d_e=24, M=3, d_f=96, L=2),
    },
))
