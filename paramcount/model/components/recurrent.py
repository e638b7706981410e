"""Recurrent layers (SimpleRNN, LSTM, GRU) with their gates visible, and stacks of them.

Keras keeps each recurrent layer in three tensors: ``kernel`` (d_in × g·d_h), ``recurrent_kernel``
(d_h × g·d_h) and ``bias`` (g·d_h, or 2 × 3·d_h for a GRU with ``reset_after``), the g gate blocks
side by side along the last axis: LSTM i, f, c, o (g = 4); GRU z, r, h (g = 3). Each gate is a
leaf that claims its slice of all three (``part=(i, g)``, see :mod:`paramcount.core.formula`), so the
breakdown shows why an LSTM layer costs 4·(d_in·d_h + d_h² + d_h) and the verifier checks it gate
by gate.

Conventions: Keras' LSTM has one bias per gate (PyTorch's two); Keras' GRU with
``reset_after=True`` (its default, cuDNN-compatible) has two per gate (input and recurrent), with
``reset_after=False`` one. A bidirectional layer is two layers of the same shape, forward and
backward, whose outputs are concatenated: the next layer sees 2·d_h.
"""

from __future__ import annotations

from paramcount.core.formula import Term, group, leaf
from paramcount.core.symbols import bi, d_h, reset_after, v_out

__all__ = [
    "GATES",
    "bi",
    "layered_stack",
    "recurrent_cell",
    "recurrent_stack",
    "reset_after",
    "v_out",
]



# Gate blocks in Keras' order along the last axis of kernel, recurrent_kernel and bias.
GATES: dict[str, tuple[str, ...]] = {
    "simple_rnn": ("cell",),
    "lstm": ("input", "forget", "cell", "output"),
    "gru": ("update", "reset", "candidate"),
}

_WHAT = {
    ("lstm", "input"): "input gate i",
    ("lstm", "forget"): "forget gate f",
    ("lstm", "cell"): "cell candidate c̃",
    ("lstm", "output"): "output gate o",
    ("gru", "update"): "update gate z",
    ("gru", "reset"): "reset gate r",
    ("gru", "candidate"): "candidate state h̃",
    ("simple_rnn", "cell"): "h_t = tanh(W·x_t + U·h_{t-1} + b)",
}


def recurrent_cell(kind: str, d_in, units=d_h, *, gru_reset_after=reset_after) -> tuple[Term, ...]:
    """The gate leaves of one recurrent layer of ``kind`` reading ``d_in``-wide inputs.

    Each gate: ``d_in·units`` input weights + ``units²`` recurrent weights + its bias (``units``;
    ``(1 + reset_after)·units`` for a GRU).
    """
    if kind not in GATES:
        raise ValueError(f"unknown recurrent layer {kind!r}; known: {', '.join(GATES)}")
    gates = GATES[kind]
    biases = (1 + gru_reset_after) if kind == "gru" else 1
    bias_note = ("input and recurrent bias when reset_after = 1" if kind == "gru" else "one bias")
    out = []
    for i, gate in enumerate(gates):
        out.append(leaf(
            gate,
            d_in * units + units * units + biases * units,
            match=r"kernel|recurrent_kernel|bias",
            part=(i, len(gates)) if len(gates) > 1 else None,
            note=f"{_WHAT[kind, gate]}: input weights, recurrent weights, {bias_note}",
            kind="recurrent",
        ))
    return tuple(out)


def recurrent_stack(
    name: str,
    kind: str,
    *,
    d_in,
    layers,
    units=d_h,
    directions=1,
    prefix: str = "rnn",
    gru_reset_after=reset_after,
) -> Term:
    """``layers`` stacked recurrent layers named ``{prefix}_0``, ``{prefix}_1``, ... in Keras.

    The first reads ``d_in``; the others read the previous layer's output, ``directions·units``
    wide, so the stack is two groups: ``layer_1`` and ``layers_2_to_L`` (× ``layers - 1``).
    ``directions`` is 1, 2, or ``1 + bi``; a bidirectional Keras layer wraps a forward and a
    backward copy under its own name, so one match covers both.
    """
    first = group("layer_1", *recurrent_cell(kind, d_in, units, gru_reset_after=gru_reset_after),
                  times=directions, match=f"{prefix}_0",
                  note="reads the layer input; × directions")
    rest = group("layers_2_to_L",
                 *recurrent_cell(kind, directions * units, units, gru_reset_after=gru_reset_after),
                 times=(layers - 1) * directions, match=rf"{prefix}_[1-9]\d*",
                 note="each reads the previous layer's output (directions·d_h); "
                      "× (layers − 1)·directions")
    return group(name, first, rest if layers != 1 else None)


def layered_stack(
    name: str,
    layers,
    *,
    d_in,
    directions=1,
    prefix: str = "rnn",
    gru_reset_after=reset_after,
) -> Term:
    """A stack whose layers differ: ``layers`` is data, one ``(kind, units)`` pair per layer, in
    order (``(("lstm", d_h1), ("gru", d_h2))``), so widths and cell types may change from layer to
    layer. Layer i is ``{prefix}_{i}`` in Keras and ``layer_{i+1}`` in the breakdown; it reads the
    previous layer's output, ``directions·units`` wide (the first reads ``d_in``).
    """
    terms = []
    width = d_in
    for i, (kind, units) in enumerate(layers):
        terms.append(group(f"layer_{i + 1}",
                           *recurrent_cell(kind, width, units, gru_reset_after=gru_reset_after),
                           times=directions, match=f"{prefix}_{i}",
                           note=f"{kind}, {units} units, reads {width}; × directions"))
        width = directions * units
    return group(name, *terms)
