"""T5Gemma 2's memory and compute beside its parameter tree (:mod:`paramcount.model.cost`): the
decoder's merged attention (its queries meet the decoder's T keys and the encoder's T, projected
by the same key and value layers; both cached) and the vision tower a text-only forward leaves
idle."""

from __future__ import annotations

import dataclasses

import sympy

from paramcount.core.formula import Term
from paramcount.core.symbols import L_dec
from paramcount.core.symbols import T
from paramcount.core.symbols import w
from paramcount.model.cost import runs
from paramcount.model.cost import sliding_kept
from paramcount.model.cost import without_cache


def merged_scores(query: Term) -> Term:
    """The merged attention's query: its T queries meet 2T keys (the decoder's T and the
    encoder's T, concatenated), so its products of queries and keys and of weights and values
    are twice a self-attention's, said by the width its scores use (attends = scores + the
    output's d_in = 2·(M·d_k + M·d_k)): ``scores`` = 2·d_out + d_out."""
    width = query.costs()["d_out"]
    return query.with_cost(scores=3 * width)


# What the decoder's merged attention caches after T tokens (transformers' EncoderDecoderCache,
# both at its self_attn): its own keys and values in the self-attention cache, min(T, w − 1)
# positions in a sliding layer and T in each of the ⌊L_dec/6⌋ global ones (layer_types: five
# sliding, then one global; w the decoder config's sliding_window), and the encoder's T in the
# cross-attention cache (a DynamicCache without the config: no window).
MERGED_KEPT = sliding_kept(w, sympy.floor(L_dec / 6), layers=L_dec) + T


def idle(term: Term) -> Term:
    """``term`` as a text-only forward leaves it: not run (no FLOPs: no pixel values), no cache."""
    def walk(t: Term) -> Term:
        if t.is_leaf:
            return t.with_cost(flops=0)
        return dataclasses.replace(t, children=tuple(walk(c) for c in t.children))

    return without_cache(walk(runs(term, 0)))
