"""Gemma 4 (Google DeepMind 2026), the dense text decoder, as KerasHub builds it:
keras_hub.models.Gemma4Backbone without vision or audio encoders, per-layer inputs, KV sharing
or MoE blocks.

A heterogeneous stack (:mod:`paramcount.model.components.stacks`): of the L blocks, L_global attend
globally and the other L_local in a sliding window (``sliding_window_pattern``: every 6th layer
global; or ``layer_types``), and the two kinds hold *different* weights. Sliding-window layers
have M query and M_kv key/value heads of width d_k; global layers use heads of width d_kg
(``global_head_dim``) and, with ``num_global_key_value_heads`` (flag keqv), M_kvg key heads whose
keys double as values (``attention_k_eq_v``: no value projection). Every attention has QK norm
(one d-wide scale each for queries and keys) and a scale-free value norm. Each block also has
Gemma 3's four RMS norms, a GeGLU feed-forward (no biases) and a non-trainable scalar
(``layer_scalar``, counted apart). The head is the token table, transposed (tied).

Not yet counted (left for a later change): the vision and audio encoders of the released
(multimodal) checkpoints, the per-layer input embeddings and KV-shared layers of the small
(E2B/E4B-style) models and the MoE blocks of the 26B-A4B model; KerasHub's preset figures are
rounded (5.1B, 7.9B, 26B, 31B), so no preset is listed here yet.

Configs in: a Gemma4TextConfig (``model_type`` gemma4_text, Gemma4ForCausalLM; the 31B
checkpoint's ``text_config`` as a file of its own) or a Gemma4Backbone config; the options above
that are not counted are refused by key. transformers (Gemma4ForCausalLM) builds the same weights:
no delta; it forces the last layer global, so it builds no stack without a global layer.
"""

from __future__ import annotations

import sympy

from paramcount.core.formula import group
from paramcount.core.formula import leaf
from paramcount.core.formula import zero
from paramcount.core.hparams import Divisible
from paramcount.core.hparams import Relation
from paramcount.core.restrictions import Fixed
from paramcount.core.restrictions import Holds
from paramcount.core.restrictions import Limit
from paramcount.core.restrictions import Requires
from paramcount.core.restrictions import Sets
from paramcount.core.symbols import L
from paramcount.core.symbols import L_global
from paramcount.core.symbols import L_local
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import M_kvg
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_f
from paramcount.core.symbols import d_k
from paramcount.core.symbols import d_kg
from paramcount.core.symbols import keqv
from paramcount.core.symbols import v
from paramcount.families._defaults import family_table
from paramcount.families._defaults import keras_hub_backbone
from paramcount.families._defaults import not_formulated
from paramcount.families._lineages import DECODER_FIELDS
from paramcount.families._lineages import FFN
from paramcount.families._lineages import GQA
from paramcount.families._lineages import HEAD_DIM
from paramcount.families._lineages import NO_IMAGE_SIZE
from paramcount.model.components import dense
from paramcount.model.components import gated_feed_forward
from paramcount.model.components import rms_norm
from paramcount.model.components.llama_like import embeddings
from paramcount.model.components.stacks import LayerKinds
from paramcount.model.frameworks import Transformers
from paramcount.model.mapping import Field
from paramcount.model.registry import register

IDS = ("gemma4",)  # the ids this folder registers


def _local_or_global(i: int, *, sliding_window_pattern: int = 6,
                     layer_types: list[str] | None = None) -> str:
    """Gemma4Backbone's rule: ``layer_types[i]``, else the last of each
    ``sliding_window_pattern`` consecutive layers is global."""
    if layer_types is not None:
        return "global" if layer_types[i] == "full_attention" else "local"
    return "global" if i % sliding_window_pattern == sliding_window_pattern - 1 else "local"


LOCAL_AND_GLOBAL = LayerKinds((("global", L_global), ("local", L_local)), _local_or_global)


def _attention(*, key_dim, kv_heads, value: bool | sympy.Expr = True):
    """Gemma4TextAttention: query, key, value (unless keys double as values), output, QK norm."""
    v_flag = 1 if value is True else value
    return group(
        "attention",
        dense("query", d_e, M * key_dim, bias=0, match="query"),
        dense("key", d_e, kv_heads * key_dim, bias=0, match="key"),
        leaf("value", v_flag * d_e * kv_heads * key_dim, match="value",
             note="no value projection where keys double as values (keqv = 1)"
             if v_flag != 1 else "value projection"),
        leaf("query_norm", key_dim, match="query_norm", note="RMS norm over each query head",
             kind="norm"),
        leaf("key_norm", key_dim, match="key_norm", note="RMS norm over each key head",
             kind="norm"),
        zero("value_norm", "value RMS norm without a learned scale", kind="norm"),
        dense("output", M * key_dim, d_e, bias=0, match="attention_output"),
        match="attention",
        kind="attention",
    )


_GLOBAL_KV_HEADS = keqv * M_kvg + (1 - keqv) * M_kv

BLOCKS = LOCAL_AND_GLOBAL.stack(
    "blocks",
    common=(
        rms_norm("pre_attention_norm", match="pre_attention_norm"),
        rms_norm("post_attention_norm", match="post_attention_norm"),
        rms_norm("pre_ffw_norm", match="pre_ffw_norm"),
        gated_feed_forward(bias=0, names=("ffw_gating", "ffw_gating_2", "ffw_linear")),
        rms_norm("post_ffw_norm", match="post_ffw_norm"),
        leaf("layer_scalar", 1, match="layer_scalar", trainable=False, kind="other",
             note="a fixed scalar per block (HF: a buffer), non-trainable"),
    ),
    per_kind={
        "global": (group("global_attention",
                         *_attention(key_dim=d_kg, kv_heads=_GLOBAL_KV_HEADS,
                                     value=1 - keqv).children,
                         match=r"decoder_block_\d+_global/attention", kind="attention"),),
        "local": (group("local_attention", *_attention(key_dim=d_k, kv_heads=M_kv).children,
                        match=r"decoder_block_\d+/attention", kind="attention"),),
    },
    # The reference names global blocks ``decoder_block_i_global`` (KerasHub names every block
    # ``decoder_block_i``): weights of the two kinds sit at the same paths otherwise.
    match=r"decoder_block_\d+(?:_global)?",
    note="L blocks: norms, feed-forward and scalar in each; global attention in L_global of "
         "them, sliding-window attention in the other L_local",
)



def _layer_types(hp) -> list[str]:
    """The blocks' kinds as both frameworks are given them: the L_local sliding-window blocks,
    then the L_global global ones (which blocks does not change the count; transformers forces
    the last block global, so the global ones go last)."""
    return (["sliding_attention"] * (hp["L"] - hp["L_global"])
            + ["full_attention"] * hp["L_global"])


def _keras_keys(config):
    """A KerasHub config as the table reads it: ``layer_types`` null means KerasHub's own rule
    (the last of every ``sliding_window_pattern`` blocks global)."""
    layers, pattern = config.get("num_layers"), config.get("sliding_window_pattern") or 6
    if config.get("layer_types") is not None or not isinstance(layers, int) \
            or not isinstance(pattern, int) or isinstance(pattern, bool) or pattern < 1:
        return config
    kinds = [_local_or_global(i, sliding_window_pattern=pattern) for i in range(layers)]
    return {**config, "layer_types": ["full_attention" if k == "global" else "sliding_attention"
                                      for k in kinds]}


_OVERRIDES = frozenset({"head_dim", "num_key_value_heads"})


def _hf_keys(config):
    """A transformers config as Gemma4TextConfig.__post_init__ reads it: absent ``layer_types``
    are every sixth block global; the last block is forced global whatever the list says; a
    ``per_layer_config`` (what transformers saves in place of ``global_head_dim`` and
    ``num_global_key_value_heads``) that overrides exactly the global blocks, all alike, reads
    as those two keys (any other stays, and is refused)."""
    out = dict(config)
    layers, kinds = out.get("num_hidden_layers"), out.get("layer_types")
    if kinds is None and isinstance(layers, int) and not isinstance(layers, bool):
        kinds = ["full_attention" if (i + 1) % 6 == 0 else "sliding_attention"
                 for i in range(layers)]
    if isinstance(kinds, list) and kinds and isinstance(kinds[-1], str):
        kinds = [*kinds[:-1], "full_attention"]
    if kinds is not None:
        out["layer_types"] = kinds
    per_layer = out.get("per_layer_config")
    if isinstance(per_layer, dict) and isinstance(kinds, list):
        full = {str(i) for i, k in enumerate(kinds) if k == "full_attention"}
        rows = list(per_layer.values())
        if ({str(k) for k in per_layer} == full and rows and all(isinstance(r, dict) for r in rows)
                and all(r == rows[0] for r in rows) and "head_dim" in rows[0]
                and set(rows[0]) <= _OVERRIDES
                and ("num_key_value_heads" not in rows[0] or out.get("attention_k_eq_v"))):
            del out["per_layer_config"]
            out["global_head_dim"] = rows[0]["head_dim"]
            out["num_global_key_value_heads"] = rows[0].get("num_key_value_heads")
    return out


# symbol ↔ Gemma4Backbone argument ↔ Gemma4TextConfig key (model_type gemma4_text, the text
# decoder; the multimodal gemma4 configs hold it as text_config beside vision and audio encoders
# paramcount does not count yet). Global layers' K = V is a switch in transformers
# (attention_k_eq_v) and, in KerasHub, num_global_key_value_heads being set at all.
# transformers' absent global_head_dim is 512 (not head_dim), its absent
# hidden_size_per_layer_input 256 (per-layer inputs on): that key must be stated, as 0.
MAPPING = family_table(
    "gemma4", hf="Gemma4ForCausalLM", keras="Gemma4Backbone", model_type="gemma4_text",
    fields=(
        *DECODER_FIELDS, FFN, HEAD_DIM,
        Field("d_kg", keras="global_head_dim", hf="global_head_dim", keras_default=d_k,
              hf_default=512),
        Field("L_global", keras="layer_types", hf="layer_types",
              kinds=("full_attention", "sliding_attention")),
        Field("keqv", keras="num_global_key_value_heads", hf="attention_k_eq_v", flag=True,
              keras_presence=True, hf_default=0),
        Field("M_kvg", keras="num_global_key_value_heads", hf="num_global_key_value_heads",
              keras_default=M_kv, hf_default=M_kv),
    ),
    restrictions=(
        Sets("layer_types", _layer_types,
            why="transformers forces the last block global: the L_global global blocks go last (which blocks "
                "changes no weight)"),
        Sets("tie_word_embeddings", True, why="Gemma 4's head is the token embedding (tied)"),
        Sets("attention_bias", False, why="KerasHub's Gemma 4 attention has no biases"),
        Sets("hidden_size_per_layer_input", 0,
            why="transformers' absent hidden_size_per_layer_input is 256 (per-layer inputs on), which the formula "
                "does not count"),
        NO_IMAGE_SIZE,
        Sets("layer_types", _layer_types, binds="keras",
            why="the sliding-window blocks first, the L_global global ones last, as transformers is given them"),
        Sets("num_global_key_value_heads", lambda hp: hp["M_kvg"] if hp["keqv"] else None, binds="keras",
            why="KerasHub switches global K = V on by num_global_key_value_heads being set at all"),
        Requires("tie_word_embeddings", (True,), why="Gemma 4's head is the token embedding (tied)"),
        Requires("attention_bias", (False,), why="KerasHub's Gemma 4 attention has no biases"),
        Requires(
            "hidden_size_per_layer_input",
            (0,),
            absent_ok=False,
            why="per-layer input embeddings (the E2B/E4B "
                "models) are not formulated yet; transformers builds them (256 wide) when the "
                "key is absent",
        ),
        Requires("num_kv_shared_layers", (0,), why="key/value-sharing layers are not formulated yet"),
        Requires(
            "enable_moe_block",
            (False,),
            why="the mixture-of-experts blocks (26B-A4B) are not "
                "formulated yet",
        ),
        Requires(
            "per_layer_config",
            (None,),
            why="per-layer overrides other than the global "
                "layers' head width and K = V heads",
        ),
        Requires(
            "hidden_size_per_layer_input",
            (0,),
            binds="keras",
            why="per-layer input embeddings (the E2B/E4B "
                "models) are not formulated yet",
        ),
        Requires("num_kv_shared_layers", (0,), binds="keras", why="key/value-sharing layers are not formulated yet"),
        Requires(
            "enable_moe_block",
            (False,),
            binds="keras",
            why="the mixture-of-experts blocks (26B-A4B) are not "
                "formulated yet",
        ),
        Requires(
            "vision_encoder",
            (None,),
            binds="keras",
            why="only the text decoder is formulated (no vision "
                "encoder)",
        ),
        Requires(
            "audio_encoder",
            (None,),
            binds="keras",
            why="only the text decoder is formulated (no audio "
                "encoder)",
        ),
        Requires(
            "is_embedding_model",
            (False,),
            binds="keras",
            why="an embedding Gemma4Backbone's pooling head is "
                "not formulated",
        ),
    ),
    hf_normalize=_hf_keys,
    keras_normalize=_keras_keys,
)


def _global_layers_apart(path: str, config) -> str:
    """Gemma4ForCausalLM names every block ``model.layers.i``: a global block's weights are
    renamed ``model/layers/i_global/...``, as the Keras reference names them apart."""
    parts = path.split("/")
    if len(parts) > 2 and parts[:2] == ["model", "layers"] and parts[2].isdigit() \
            and config.layer_types[int(parts[2])] == "full_attention":
        parts[2] += "_global"
    return "/".join(parts)


# Gemma4ForCausalLM: Gemma 3's names (input_layernorm, post_attention_layernorm,
# pre_feedforward_layernorm, post_feedforward_layernorm; q_norm, k_norm, a scale-free v_norm),
# the block's ``layer_scalar`` a persistent buffer, the head tied (lm_head is embed_tokens,
# listed once). transformers forces the last block global, so it builds no all-sliding stack.
TRANSFORMERS = Transformers(
    restrictions=(
        # no validation refuses a stack without a global layer: the config makes its last
        # layer global, another model (a limit: verify skips such a set, naming it)
        Limit(
            Relation(L_global, ">=", 1, reason="transformers' Gemma4TextConfig forces the "
            "last layer to global attention"),
        ),
    ),
    weights={
        "embeddings.token": "model/embed_tokens",
        "blocks": r"layers/\d+(?:_global)?",
        "blocks.pre_attention_norm": "input_layernorm",
        "blocks.post_attention_norm": "post_attention_layernorm",
        "blocks.pre_ffw_norm": "pre_feedforward_layernorm",
        "blocks.ffn": "mlp",
        "blocks.ffn.gate": "gate_proj",
        "blocks.ffn.up": "up_proj",
        "blocks.ffn.down": "down_proj",
        "blocks.post_ffw_norm": "post_feedforward_layernorm",
        "blocks.layer_scalar": "layer_scalar",
        **{f"blocks.{kind}_attention{leaf}": pattern
           for kind, block in (("global", r"layers/\d+_global"), ("local", r"layers/\d+"))
           for leaf, pattern in (("", f"{block}/self_attn"), (".query", "q_proj"),
                                 (".key", "k_proj"), (".value", "v_proj"),
                                 (".query_norm", "q_norm"), (".key_norm", "k_norm"),
                                 (".output", "o_proj"))},
        "final_norm": "model/norm",
    },
    rename=_global_layers_apart,
)

register(keras_hub_backbone(
    "gemma4",
    formula=group(
        "gemma4",
        embeddings("token_embedding"),
        BLOCKS,
        rms_norm("final_norm", match="final_normalization"),
        zero("head", "tied: the output projection is the token embedding, transposed", kind="head"),
    ),
    reference="reference_models.gemma4:backbone",
    required=(v, d_e, M, M_kv, d_k, d_f, L),
    optional={L_global: sympy.floor(L / 6), d_kg: d_k, keqv: 0, M_kvg: M_kv},
    restrictions=(
        *Fixed.each(LOCAL_AND_GLOBAL.fixed(),
            why="the sliding-window blocks are those not global (L_local = L − L_global)"),
        GQA,
        Holds(Divisible(M, M_kvg), why="the global layers' key heads are shared by whole groups of query heads too"),
        *Holds.each(LOCAL_AND_GLOBAL.constraints()),
    ),
    presets=None,
    mapping=MAPPING,
    transformers=TRANSFORMERS,
))

# memory and compute: what the trees do not formulate yet (frameworks.unformulated)
register(not_formulated(
    "gemma4",
    flops=(
        "Gemma 4's global layers (keys as values, a width of their own) are not written "
        "as one attention's scores yet"
    ),
    kv=(
        "Gemma 4's global layers cache keys that are also their values; not formulated "
        'yet'
    ),
), replace=True)
