"""Components: small functions that return named formula terms.

Each returns a :class:`~paramcount.core.formula.Term`. Arguments that are sizes take a SymPy
expression or an int; arguments called ``bias`` (or ``beta``, ``scale``) take 0/1 or a flag
symbol, so one formula can cover a family of options. ``match`` arguments name the Keras layers
the term covers (regex over whole weight-path segments; see :mod:`paramcount.core.formula`), with
defaults taken from KerasHub's layer names.

Conventions (stated once, here): a dense layer is ``d_in·d_out`` weights plus ``d_out`` biases;
a layer norm has a scale γ and, unless ``beta=0``, a shift β, each ``width`` wide; Keras keeps one
bias vector per dense layer (PyTorch's LSTM keeps two per gate block; Keras' does not).
"""

from __future__ import annotations

import sympy

from paramcount.core.formula import Term, group, leaf, zero
from paramcount.core.hparams import Divisible, Relation
from paramcount.core.symbols import M, d_e, d_f, d_k, d_v, zeta

#: The heads split the model width (KerasHub's ``key_dim = hidden_dim // num_heads``), as an
#: architecture's ``fixed`` values. The floor is KerasHub's: where its layers floor, the
#: architecture drops ``Divisible(d_e, M)`` and d_e = 256 with M = 3 gives heads of 85 (M·d_k =
#: 255 ≠ d_e); where the reference needs an exact split, the constraint stays and the floor is exact.
EVEN_HEADS = {d_k: sympy.floor(d_e / M), d_v: sympy.floor(d_e / M)}
#: With the floor, d_e < M would give heads of width zero, which KerasHub refuses: the constraint
#: a flooring architecture states instead of ``Divisible(d_e, M)``.
HEADS_FIT = Relation(M, "<=", d_e, reason="fewer heads than the width: d_e // M must not be 0")
# transformers' BERT, GPT-2 and OPT attention refuse a width that is not a multiple of the heads
# (no floor there): a constraint of their transformers reference, not of the Keras model
WHOLE_HEADS = Divisible(d_e, M)

__all__ = [
    "EVEN_HEADS",
    "HEADS_FIT",
    "WHOLE_HEADS",
    "attention",
    "decoder_block",
    "dense",
    "embedding",
    "encoder_block",
    "feed_forward",
    "layer_norm",
    "position_embedding",
    "sinusoidal_positions",
]


def embedding(name: str, rows, width=d_e, *, match: str | None = None, note: str = "",
              kind: str = "embedding") -> Term:
    """A lookup table of ``rows`` vectors of ``width`` (token, segment or position embedding)."""
    return leaf(name, rows * width, match=match, note=note or f"{rows} × {width} table", kind=kind)


def position_embedding(n_positions, width=d_e, *, name: str = "position",
                       match: str | None = "position_embedding") -> Term:
    """Learned absolute positions: one vector per position."""
    return embedding(name, n_positions, width, match=match, note="learned absolute positions",
                     kind="position")


def sinusoidal_positions(name: str = "positions") -> Term:
    return zero(name, "sinusoidal positions: computed from the position, not learned",
                kind="position")


def dense(name: str, d_in, d_out, *, bias=1, match: str | None = None, note: str = "",
          kind: str | None = None) -> Term:
    """A fully connected layer: ``d_in·d_out`` weights plus ``bias·d_out`` biases; its kind is
    the caller's (a query projection is attention, a head a head), by default its group's."""
    return leaf(name, d_in * d_out + bias * d_out, match=match, note=note, kind=kind,
                d_in=d_in, d_out=d_out)


def layer_norm(name: str, width=d_e, *, beta=1, match: str | None = None) -> Term:
    """Layer normalisation: scale γ and (``beta=1``) shift β, ``width`` each."""
    note = "layer norm: γ and β" if beta == 1 else ("layer norm: γ only" if beta == 0 else "")
    return leaf(name, (1 + beta) * width, match=match, note=note, kind="norm")


def attention(
    name: str = "attention",
    *,
    match: str | None = "self_attention",
    width=d_e,
    heads=M,
    kv_heads=None,
    key_dim=d_k,
    value_dim=d_v,
    kv_width=None,
    bias=zeta,
    names: tuple[str, str, str, str] = ("query", "key", "value", "attention_output"),
    kind: str = "attention",
) -> Term:
    """Multi-head attention as four projections.

    With ``kv_heads = heads = M`` and one ``bias`` flag for all four this sums to the paper's
    ``2·M·d_e·(d_k+d_v) + ζ·(M·(2·d_k+d_v) + d_e)``; ``kv_heads`` (M_kv) generalises it to
    grouped-query and multi-query attention, ``kv_width`` to cross-attention whose keys and values
    come from a stream of another width, and ``bias`` may be a 4-tuple (q, k, v, o) for models
    that put biases on some projections only.
    """
    kv_heads = heads if kv_heads is None else kv_heads
    kv_width = width if kv_width is None else kv_width
    b_q, b_k, b_v, b_o = bias if isinstance(bias, tuple) else (bias,) * 4
    q, k, val, o = names
    return group(
        name,
        dense("query", width, heads * key_dim, bias=b_q, match=q),
        dense("key", kv_width, kv_heads * key_dim, bias=b_k, match=k),
        dense("value", kv_width, kv_heads * value_dim, bias=b_v, match=val),
        dense("output", heads * value_dim, width, bias=b_o, match=o),
        match=match,
        kind=kind,
    )


def feed_forward(
    name: str = "ffn",
    *,
    width=d_e,
    inner=d_f,
    bias=1,
    match: str | None = None,
    names: tuple[str, str] = ("feedforward_intermediate_dense", "feedforward_output_dense"),
) -> Term:
    """The position-wise feed-forward network: ``width → inner → width``, two dense layers."""
    up, down = names
    return group(
        name,
        dense("up", width, inner, bias=bias, match=up),
        dense("down", inner, width, bias=bias, match=down),
        match=match,
        kind="feed-forward",
    )


def encoder_block(
    *,
    times=1,
    name: str = "blocks",
    match: str | None = r"transformer_layer_\d+",
    attention_match: str = "self_attention_layer",
    bias=zeta,
    norm_names: tuple[str, str] = ("self_attention_layer_norm", "feedforward_layer_norm"),
) -> Term:
    """A transformer encoder block (post- or pre-LN alike: the count is the same).

    The paper's block: multi-head self-attention, add & norm, feed-forward, add & norm.
    """
    return group(
        name,
        attention(match=attention_match, bias=bias),
        layer_norm("norm_1", match=norm_names[0]),
        feed_forward(),
        layer_norm("norm_2", match=norm_names[1]),
        times=times,
        match=match,
    )


def decoder_block(
    *,
    times=1,
    cross_attention: bool = False,
    cross_width=None,
    name: str = "blocks",
    match: str | None = r"transformer_layer_\d+",
    bias=zeta,
) -> Term:
    """A transformer decoder block: masked self-attention, optionally cross-attention over an
    encoder's output (of width ``cross_width``, default d_e), and a feed-forward network, each
    followed by a layer norm. Layer names follow ``keras_hub.layers.TransformerDecoder``.
    """
    parts: list[Term | None] = [
        attention("self_attention", match="self_attention", bias=bias),
        layer_norm("norm_1", match="self_attention_layer_norm"),
    ]
    if cross_attention:
        parts += [
            attention("cross_attention", match="cross_attention", bias=bias, kv_width=cross_width,
                      kind="cross-attention"),
            layer_norm("norm_cross", match="cross_attention_layer_norm"),
        ]
    parts += [feed_forward(), layer_norm("norm_2", match="feedforward_layer_norm")]
    return group(name, *parts, times=times, match=match)


def paper_attention_total(heads=M, width=d_e, key_dim=d_k, value_dim=d_v, bias=zeta) -> sympy.Expr:
    """The paper's closed form for one multi-head attention layer, for cross-checking the tree."""
    return 2 * heads * width * (key_dim + value_dim) + bias * (
        heads * (2 * key_dim + value_dim) + width
    )
