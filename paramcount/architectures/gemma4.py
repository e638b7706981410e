"""Gemma 4 (Google DeepMind 2026), the dense text decoder, as KerasHub builds it:
keras_hub.models.Gemma4Backbone without vision or audio encoders, per-layer inputs, KV sharing
or MoE blocks.

A heterogeneous stack (:mod:`paramcount.components.stacks`): of the L blocks, L_global attend
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
"""

from __future__ import annotations

import sympy

from paramcount.components import dense, embedding, gated_feed_forward, rms_norm
from paramcount.components.modern import rotary_positions
from paramcount.components.stacks import LayerKinds
from paramcount.formula import group, leaf, zero
from paramcount.hparams import Divisible
from paramcount.registry import Architecture, register
from paramcount.symbols import L, L_global, L_local, M, M_kv, M_kvg, d_e, d_f, d_k, d_kg, keqv, v


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

register(Architecture(
    id="gemma4",
    title="Gemma 4 dense text decoder (keras_hub.models.Gemma4Backbone, no vision/audio): "
          "local and global layers with different weights",
    source="Google DeepMind 2026 (Gemma 4); "
           "keras_hub/src/models/gemma4/gemma4_{backbone,decoder_block,attention}.py",
    formula=group(
        "gemma4",
        group("embeddings", embedding("token", v, match="token_embedding"), rotary_positions()),
        BLOCKS,
        rms_norm("final_norm", match="final_normalization"),
        zero("head", "tied: the output projection is the token embedding, transposed", kind="head"),
    ),
    reference="reference_models.gemma4:backbone",
    counting="trainable weights of the text decoder: token embedding (also the tied head), L "
             "blocks (L_global global, L_local sliding-window), final norm; each block's "
             "non-trainable scalar counted apart",
    required=(v, d_e, M, M_kv, d_k, d_f, L),
    optional={L_global: sympy.floor(L / 6), d_kg: d_k, keqv: 0, M_kvg: M_kv},
    fixed=LOCAL_AND_GLOBAL.fixed(),
    constraints=(Divisible(M, M_kv), Divisible(M, M_kvg), *LOCAL_AND_GLOBAL.constraints()),
    family="keras_hub",
    examples={
        "tiny": dict(v=100, d_e=32, M=4, M_kv=2, d_k=8, d_f=48, L=7),
        "tiny_k_eq_v": dict(v=100, d_e=32, M=4, M_kv=2, d_k=8, d_f=48, L=6, L_global=2, d_kg=16,
                            keqv=1, M_kvg=1),
        "odd_all_local": dict(v=97, d_e=15, M=3, M_kv=3, d_k=5, d_f=7, L=3, L_global=0),
        "odd_all_global": dict(v=13, d_e=10, M=2, M_kv=1, d_k=3, d_f=5, L=2, L_global=2, d_kg=7),
    },
))
