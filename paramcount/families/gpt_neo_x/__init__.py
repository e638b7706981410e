"""GPT-NeoX (Black et al. 2022) as KerasHub builds it: keras_hub.models.GPTNeoXBackbone.

Token embedding only (rotary positions on a fraction of each head, no learned positions), L
blocks with *parallel* attention and feed-forward (x + attn(LN₁(x)) + ffn(LN₂(x)): two norms, as
in the sequential block, so the count is the same), a fused query-key-value projection with
biases, and a final layer norm.
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.hparams import Divisible
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import v
from paramcount.families._decoders import CAUSAL_LM_FREE
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._lineages import ENCODER_FIELDS
from paramcount.families._lineages import TINY_AND_ODD
from paramcount.families._lineages import pinned
from paramcount.model.components import dense
from paramcount.model.components import feed_forward
from paramcount.model.components import layer_norm
from paramcount.model.components.decoders import fused_qkv
from paramcount.model.components.llama_like import embeddings
from paramcount.model.frameworks import Delta
from paramcount.model.frameworks import Transformers
from paramcount.model.registry import register

IDS = ("gpt_neo_x",)  # the ids this folder registers


# symbol ↔ GPTNeoXBackbone argument ↔ GPTNeoXConfig key. The rotary fraction, its base, the
# parallel residual and the context length hold no weights.
MAPPING = family_table(
    # Published GPT-NeoX configs (Pythia, GPT-NeoX-20B) name GPTNeoXForCausalLM: the backbone
    # plus the untied head declared as a delta below. A GPTNeoXModel config is not read (it
    # would need the same formula without that delta).
    "gpt_neo_x", hf="GPTNeoXForCausalLM", keras="GPTNeoXBackbone", model_type="gpt_neox",
    fields=ENCODER_FIELDS,
    restrictions=pinned(
        ("attention_bias", True, "GPT-NeoX's fused query-key-value and output projections have biases",
         "KerasHub's GPT-NeoX projections all have biases"),
        ("tie_word_embeddings", False, "GPT-NeoX's LM head is a matrix of its own (untied)",
         "the transformers delta is EleutherAI's untied output head (every published "
         "GPT-NeoX checkpoint); a tied one is not formulated"),
    ),
    free=CAUSAL_LM_FREE | {
        "hidden_dropout", "classifier_dropout", "layer_norm_eps", "use_parallel_residual", "rotary_pct",
        "rotary_emb_base", "is_decoder", "partial_rotary_factor", "dropout", "rotary_percentage",
        "rotary_max_wavelength", "layer_norm_epsilon", "max_sequence_length", "attention_probs_dropout_prob",
        "hidden_dropout_prob",
    },
)

# GPTNeoXForCausalLM's names (under ``gpt_neox.``). Its fused query_key_value is claimed whole by
# the fused leaf, as KerasHub's is. The head is EleutherAI's embed_out, lm_head in transformers.
TRANSFORMERS = Transformers(
    weights={
        "embeddings.token": "gpt_neox/embed_in",
        "blocks": r"gpt_neox/layers/\d+",
        "blocks.attention": "attention",
        "blocks.attention.query_key_value": "query_key_value",
        "blocks.attention.output": "dense",
        "blocks.norm_1": "input_layernorm",
        "blocks.ffn": "mlp",
        "blocks.ffn.up": "dense_h_to_4h",
        "blocks.ffn.down": "dense_4h_to_h",
        "blocks.norm_2": "post_attention_layernorm",
        "final_norm": "gpt_neox/final_layer_norm",
        "head": "lm_head",
    },
    deltas=(Delta(
        "head",
        leaf("head", d_e * v, note="transformers: GPTNeoXForCausalLM's untied output head "
                                   "(EleutherAI's embed_out), d_e × v, no bias", kind="head",
             macs=d_e * v),
        "GPTNeoXForCausalLM keeps an untied output head; KerasHub's GPTNeoXBackbone has none "
        "and its GPTNeoXCausalLM reuses the token embedding"),),
)

register(keras_hub_backbone(
    "gpt_neo_x",
    formula=group(
        "gpt_neo_x",
        embeddings("token_embedding"),
        group(
            "blocks",
            group(
                "attention",
                fused_qkv(),
                dense("output", d_e, d_e, match="attention_output"),
                match="self_attention",
                kind="attention",
            ),
            layer_norm("norm_1", match="self_attention_layer_norm"),
            feed_forward(),
            layer_norm("norm_2", match="feedforward_layer_norm"),
            times=L,
            match=r"transformer_layer_\d+",
            note="parallel residual: attention and feed-forward both read the block input, "
                 "each through its own layer norm",
        ),
        layer_norm("final_norm", match="layer_norm"),
    ),
    required=(v, d_e, M, d_f, L),
    restrictions=(
        Fixed(d_k, d_e / M,
            why="KerasHub's GPTNeoX backbone has no head-width argument: each head is the width over the heads"),
        Holds(Divisible(d_e, M),
            why="the heads split the width exactly: transformers' GPTNeoXAttention refuses a hidden size the heads "
                "do not divide"),
    ),
    keras_hub_metadata=False,
    mapping=MAPPING,
    transformers=TRANSFORMERS,
    examples=TINY_AND_ODD,
))
