"""Gemma 3n's memory and compute beside its parameter tree (:mod:`paramcount.model.cost`), as
transformers' Gemma3nForCausalLM computes and caches them (a forward in training mode, as the
measurement builds it: ``reference_models.hf_costs``).

- **Attention**: every block's queries meet the T keys and values of its attention type, its own
  or, in the last L_kvs blocks (KV sharing), those the last computing block of that type kept for
  the whole forward (``store_full_length_kv``: all T, a sliding layer's too), so the scores are
  a self-attention's in all L blocks (said on the query: the key and value projections sit
  apart, in the computing blocks only).
- **Cache**: only the L_kvo computing blocks write one (a shared block reads, caches nothing):
  min(T, w − 1) positions in a sliding-window block, T in each of the ⌊L_kvo/5⌋ global ones
  (``layer_types``: Gemma 3n's every fifth block global, as the builds are given them), which,
  said on the query of all L blocks, is their sum over L per block.
- **AltUp**: the router runs twice per block (predict and correct); the prediction's product of
  the A copies with their A × A coefficients (a ``matmul``) and, in training mode with
  ``altup_coef_clip`` (120 by default), the correction's ``F.linear`` of its coefficients on the
  clamped weight run inline, so torch counts both at the block (``<block>/scores``), none at
  ``correction_coefs``; the output scale multiplies elementwise (nothing counted).
"""

from __future__ import annotations

import sympy

from paramcount.core.formula import Term
from paramcount.core.formula import leaf
from paramcount.core.symbols import A
from paramcount.core.symbols import B
from paramcount.core.symbols import L
from paramcount.core.symbols import L_kvo
from paramcount.core.symbols import M
from paramcount.core.symbols import M_kv
from paramcount.core.symbols import T
from paramcount.core.symbols import d_e
from paramcount.core.symbols import d_k
from paramcount.core.symbols import w
from paramcount.model.cost import sliding_kept

__all__ = ["ALTUP_MIXING", "COST_CONFIG", "TWICE", "attending", "inline"]

# Gemma3nTextConfig's sliding_window, 512 by default (a window of w keeps w − 1 positions)
COST_CONFIG = {"sliding_window": (w, 512)}

# the tokens AltUp's router runs on per sequence: each block routes twice (predict and correct)
TWICE = 2 * T

# positions each block's cache holds, over all L blocks: the L_kvo computing ones' (min(T, w − 1)
# in a sliding one, T in the ⌊L_kvo/5⌋ global ones), none in the L_kvs shared ones
KEPT = sliding_kept(w, sympy.floor(L_kvo / 5), layers=L_kvo) * L_kvo / L


def attending(query: Term) -> Term:
    """The query projection of a block's attention, saying what the attention costs beside it:
    its scores and weighted values (M·d_k + M·d_k per query and key) in every block, and the
    keys and values (M_kv·d_k each) the computing blocks cache, ``KEPT`` positions a block."""
    return query.with_cost(attends=2 * M * d_k, caches=2 * M_kv * d_k, kept=KEPT)


def inline(term: Term) -> Term:
    """A parameter the block applies itself (no module call of its own): its products are the
    block's (:data:`ALTUP_MIXING`), none its own."""
    return term.with_cost(flops=0)


ALTUP_MIXING = leaf(
    "altup_mixing", 0, match="scores", kind="other",
    note="no parameters; the block's own products: AltUp's prediction of the A copies by their "
         "A × A coefficients (2·B·T·d_e·A²) and its correction coefficients (2·B·T·A·A)",
    flops=2 * B * T * A * (d_e * A + A))
