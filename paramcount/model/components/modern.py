"""Components of 2020s decoder LMs (seed 004): RMS norm, gated feed-forward, mixture of experts,
and the position schemes that cost no parameters."""

from __future__ import annotations

import dataclasses

from paramcount.core.formula import Term, group, leaf, zero
from paramcount.core.symbols import E, d_e, d_f
from paramcount.core.symbols import k as k_act
from paramcount.model.components.basic import dense

__all__ = ["alibi", "gated_feed_forward", "mixture_of_experts", "rms_norm", "rotary_positions"]



def rms_norm(name: str, width=d_e, *, scale=1, match: str | None = None) -> Term:
    """RMS normalisation: a scale vector of ``width`` (none when ``scale=0``), never a shift."""
    return leaf(name, scale * width, match=match, kind="norm",
                note="RMS norm: scale only" if scale == 1 else "RMS norm without a learned scale")


def gated_feed_forward(
    name: str = "ffn",
    *,
    width=d_e,
    inner=d_f,
    bias=0,
    match: str | None = None,
    names: tuple[str, str, str] = (
        "feedforward_gate_dense", "feedforward_intermediate_dense", "feedforward_output_dense"),
) -> Term:
    """Gated feed-forward (SwiGLU, GeGLU): gate and up projections ``width → inner``, then down."""
    gate, up, down = names
    return group(
        name,
        dense("gate", width, inner, bias=bias, match=gate),
        dense("up", width, inner, bias=bias, match=up),
        dense("down", inner, width, bias=bias, match=down),
        match=match,
        kind="feed-forward",
    )


def mixture_of_experts(
    name: str = "moe",
    *,
    experts=E,
    top_k=k_act,
    expert: Term,
    router: Term,
    shared: Term | None = None,
    match: str | None = None,
) -> Term:
    """A mixture-of-experts layer: ``experts`` copies of the ``expert`` network, a router, and
    optionally an always-active shared expert.

    The expert term carries ``active = top_k`` copies: the parameters one token actually uses,
    which :meth:`paramcount.core.formula.Term.active_total` sums beside the total.
    """
    expert = dataclasses.replace(expert, kind=None)  # its leaves are experts, not a plain FFN
    experts_term = Term(
        "experts", None, (expert,), experts, expert.match, note=f"{experts} experts",
        active_times=top_k, kind="expert",
    ) if not expert.is_leaf else Term(
        "experts", expert.expr, (), experts, expert.match, note=f"{experts} experts",
        active_times=top_k, kind="expert",
    )
    if router.kind is None:
        router = dataclasses.replace(router, kind="router")
    return group(name, router, experts_term, shared, match=match, kind="feed-forward")


def rotary_positions(name: str = "positions") -> Term:
    return zero(name, "rotary position embedding (RoPE): a rotation computed from the position",
                kind="position")


def alibi(name: str = "positions") -> Term:
    return zero(name, "ALiBi: a fixed linear bias on attention scores, not learned",
                kind="attention")
