"""SmolLM3 (Hugging Face 2025, "SmolLM3: smol, multilingual, long-context reasoner") as KerasHub
builds it: SmolLM3Backbone.

A Llama-style decoder: RMS norms, grouped-query attention, SwiGLU, tied head; RoPE is switched
off in every fourth layer (NoPE), which changes no count. Two things KerasHub holds that the
Llama backbone does not: each layer stores its RoPE inverse frequencies as a non-trainable weight
(d_k/2 values, counted in KerasHub's published figure, kept even in NoPE layers), and the output
projection never has a bias, even with ``attention_bias=True``. KerasHub builds the output
projection and the rotary layer outside their block's name scope, so their weights are named
``o_proj/kernel`` and ``rotary_emb/inv_freq`` in every layer alike.
"""

from __future__ import annotations

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import L
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import b_ffn
from paramcount.core.symbols import b_qkv
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import v
from paramcount.families._decoders import LLAMA_TRANSFORMERS
from paramcount.families._decoders import RMS_CAUSAL_LM_FREE
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._defaults import token_ids_unset
from paramcount.families._lineages import ATTENTION_HEADS
from paramcount.families._lineages import FFN
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HF_HEAD_DIM
from paramcount.families._lineages import KV_HEADS
from paramcount.families._lineages import LAYERS
from paramcount.families._lineages import ROTARY_PAIRS
from paramcount.families._lineages import ROTARY_PAIRS_VALIDATED
from paramcount.families._lineages import VOCAB
from paramcount.families._lineages import WIDTH
from paramcount.families._lineages import released_values
from paramcount.families._lineages import split_heads
from paramcount.model.components.basic import dense
from paramcount.model.components.llama_like import embeddings
from paramcount.model.components.llama_like import final_norm
from paramcount.model.components.llama_like import output_head
from paramcount.model.components.llama_like import tied
from paramcount.model.components.modern import gated_feed_forward
from paramcount.model.components.modern import rms_norm
from paramcount.model.frameworks import Delta
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("smollm3",)  # the ids this folder registers


BLOCKS = group(
    "blocks",
    rms_norm("attention_norm", match="input_layernorm"),
    group(
        "attention",
        dense("query", d_e, M * d_k, bias=b_qkv, match="self_attn/q_proj"),
        dense("key", d_e, M_kv * d_k, bias=b_qkv, match="self_attn/k_proj"),
        dense("value", d_e, M_kv * d_k, bias=b_qkv, match="self_attn/v_proj"),
        dense("output", M * d_k, d_e, bias=0, match="o_proj",
              note="never a bias, whatever attention_bias says"),
        leaf("rope_inv_freq", d_k / 2, match="rotary_emb/inv_freq", trainable=False,
             note="RoPE inverse frequencies kept as a non-trainable weight: computed from the "
                  "head width, not learned"),
        kind="attention",
    ),
    rms_norm("ffn_norm", match="post_attention_layernorm"),
    gated_feed_forward("ffn", bias=b_ffn, match="mlp",
                       names=("gate_proj", "up_proj", "down_proj")),
    times=L,
)


def _rope_layers(hp) -> list[int]:
    # SmolLM3's pattern (transformers' default for no_rope_layers): RoPE off in every fourth layer
    return [int((i + 1) % 4 != 0) for i in range(hp["L"])]


# symbol ↔ SmolLM3Backbone argument ↔ SmolLM3Config key. KerasHub's constructor requires its
# rotary and per-layer settings, which change no count: the Keras reference passes SmolLM3-3B's.
MAPPING = family_table(
    "smollm3", hf="SmolLM3ForCausalLM", keras="SmolLM3Backbone",
    fields=(
        VOCAB,
        LAYERS,
        ATTENTION_HEADS,
        # transformers' SmolLM3Config: 4 when absent, M only when null: the key is read
        KV_HEADS,
        WIDTH,
        FFN,
        Field("b_qkv", keras="attention_bias", hf="attention_bias", flag=True, hf_default=0),
        Field("b_ffn", keras="mlp_bias", hf="mlp_bias", flag=True, hf_default=0),
        HF_HEAD_DIM,  # d_e/M in KerasHub; a config may state only that
    ),
    restrictions=(
        Sets("tie_word_embeddings", True, why="KerasHub's SmolLM3 always ties its LM head"),
        *token_ids_unset("SmolLM3Config", "128000+", pad_token_id="torch refuses the padding row",
                         bos_token_id="transformers warns", eos_token_id="transformers warns"),
        *released_values(
            "SmolLM3Backbone",
            attention_dropout=0.0,
            layer_types=lambda hp: ["full_attention"] * hp["L"],
            layer_norm_epsilon=1e-6,
            max_position_embeddings=65536,
            rope_theta=5_000_000.0,
            partial_rotary_factor=1.0,
        ),
        Sets("rope_layer_enabled_list", _rope_layers, binds="keras",
            why="a SmolLM3Backbone argument without a default: SmolLM3's pattern, RoPE off in every fourth layer "
                "(no weights)"),
        Requires("tie_word_embeddings", (True,), why="KerasHub's SmolLM3 always ties its LM head"),
        Requires(
            "partial_rotary_factor",
            (1, 1.0),
            binds="keras",
            why="KerasHub keeps the RoPE inverse "
                "frequencies as weights: their count is d_k/2 only at partial_rotary_factor 1",
        ),
    ),
    free=RMS_CAUSAL_LM_FREE | {
        "use_sliding_window", "sliding_window", "no_rope_layers", "no_rope_layer_interval", "layer_types",
        "rope_layer_enabled_list", "layer_norm_epsilon", "max_window_layers", "pretraining_tp",
    },
)

# SmolLM3ForCausalLM: Llama's parameter names. Two differences from KerasHub's build.
TRANSFORMERS = Transformers(
    restrictions=(
        ROTARY_PAIRS_VALIDATED,
    ),
    # Llama's names (the head is tied here: lm_head is the embedding, listed once, as Llama's)
    weights=LLAMA_TRANSFORMERS.weights,
    deltas=(
        Delta("blocks.attention.output",
              dense("output", M * d_k, d_e, bias=b_qkv),
              "SmolLM3Attention's o_proj takes attention_bias too; KerasHub's never has a bias"),
        Delta("blocks.attention.rope_inv_freq", None,
              "transformers computes the RoPE inverse frequencies (a non-persistent buffer); "
              "KerasHub keeps them as a non-trainable weight in every layer"),
    ),
)

register(keras_hub_backbone(
    "smollm3",
    formula=group("smollm3", embeddings(), BLOCKS, final_norm(), output_head(1)),
    required=(v, d_e, M, M_kv, d_f, L),
    optional={b_qkv: 0, b_ffn: 0},
    restrictions=(
        split_heads("SmolLM3Backbone", "the width"),
        Fixed(tied, 1, why="KerasHub's SmolLM3 always ties its LM head"),
        ROTARY_PAIRS,
        GQA,
    ),
    mapping=MAPPING,
    transformers=TRANSFORMERS,
))
