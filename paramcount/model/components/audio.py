"""Components of speech models: the convolutional front ends that turn audio (a log-mel
spectrogram, or the raw waveform) into a sequence the transformer reads.

A 1-D convolution of kernel width K from c_in to c_out channels holds K·c_in·c_out weights and,
with a bias, c_out more; stride and padding change the sequence length, never the count.
"""

from __future__ import annotations

import dataclasses

from paramcount.core.formula import Term, leaf
from paramcount.core.symbols import B, n_audio, n_mels

__all__ = ["conv1d", "n_audio", "n_mels", "on_positions", "over_keys"]



def conv1d(name: str, c_in, c_out, *, kernel, bias=1, match: str | None = None,
           note: str = "", kind: str = "embedding") -> Term:
    """A 1-D convolution: ``kernel·c_in·c_out`` weights plus ``bias·c_out`` biases. Its kind is
    ``embedding`` by default: a speech model's convolutional front end embeds the input (the
    audio analogue of ViT's patch convolution)."""
    if not note:
        note = f"convolution, kernel width {kernel}" + ("" if bias == 1 else
                                                       ", no bias" if bias == 0 else "")
    return leaf(name, kernel * c_in * c_out + bias * c_out, match=match, note=note, kind=kind)


def on_positions(term: Term, tokens) -> Term:
    """``term`` with every leaf running on ``tokens`` positions per sequence in place of T (an
    audio encoder's, fixed by its input whatever the target length T)."""
    if term.is_leaf:
        return term.with_cost(tokens=tokens)
    return dataclasses.replace(term, children=tuple(on_positions(c, tokens) for c in term.children))


def over_keys(attention: Term, queries, keys, *, cached: bool) -> Term:
    """An attention group (query, key, value, output dense maps) whose ``queries`` positions
    meet ``keys`` positions, not T and T: an audio encoder's self-attention (its frames against
    its frames), a decoder's cross-attention over them (T against the frames). The projections
    run on their positions, and a zero-parameter ``scores`` leaf says the products of queries and
    keys and of weights and values, 2·B·queries·keys·(d_q + d_v) (measured beside the attention),
    and, ``cached``, what the cache keeps whatever T: B·keys·(d_k + d_v)."""
    parts = {c.name: c.costs() for c in attention.children}
    q, k, val, o = (parts[n] for n in ("query", "key", "value", "output"))
    attends = q.get("scores", q["d_out"]) + o["d_in"]
    caches = k["d_out"] + val["d_out"]

    def one(c: Term) -> Term:
        if c.name == "query":  # widths said as macs: the group is no T × T attention
            return dataclasses.replace(c, cost=(("macs", q["d_in"] * q["d_out"]), ("tokens", queries)))
        return c.with_cost(tokens=queries if c.name == "output" else keys)

    cost = {"flops": 2 * B * queries * keys * attends}
    if cached:
        cost["state"] = keys * caches
    scores = leaf("scores", 0, match="scores", kind="attention",
                  note="queries against the keys, and the values they weigh", **cost)
    return dataclasses.replace(attention, children=(*map(one, attention.children), scores))
