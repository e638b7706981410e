"""Selective state-space mixers (Gu & Dao 2023, "Mamba"; Dao & Gu 2024, "Transformers are SSMs",
Mamba-2), the recurrent lineage of the paper's RNNs, named as transformers' MambaMixer and
Mamba2Mixer name them. The inner width is d_in = x_in·d_e (``expand``).

Mamba (selective scan, S6): ``in_proj`` d_e → 2·d_in (the scan's input x and the gate z), a
depthwise causal ``conv1d`` of width K_conv over x, ``x_proj`` d_in → r_dt + 2·N (the input-
dependent time step Δ, in rank r_dt, and B and C), ``dt_proj`` r_dt → d_in (with a bias), the
state matrix A (``A_log``, d_in × N, diagonal per channel), the skip D (d_in) and ``out_proj``
d_in → d_e.

Mamba-2 (SSD): one ``in_proj`` d_e → 2·d_in + 2·G·N + H (z, x, B and C for G groups, and one Δ per
head), a depthwise ``conv1d`` over x, B and C, per-head A (scalar), D and Δ bias, a gated RMS norm
of d_in and ``out_proj``.
"""

from __future__ import annotations

import sympy

from paramcount.core.formula import Term, group, leaf
from paramcount.core.symbols import B, G_ssm, H_ssm, K_conv, Q_ssd, T, b_conv, b_proj, d_e, d_state, r_dt, x_in
from paramcount.model.components.basic import dense
from paramcount.model.components.modern import rms_norm

__all__ = ["MODULE_NAMES", "conv_flops", "jamba_mixer", "mamba2_mixer", "mamba_mixer", "ssd_chunk",
           "ssd_flops"]

D_IN = x_in * d_e
# The names transformers' modeling files give a state-space mixer's module (a block's ``mamba``,
# ``mixer`` or ``ssm``): a derived tree reads a leaf under one as recurrent (analyze/derive/tree.py).
MODULE_NAMES = ("mamba", "mixer", "ssm")


def _conv(channels) -> Term:
    return leaf("conv", channels * K_conv + b_conv * channels, match="conv1d", kind="recurrent",
                note="depthwise causal convolution, K_conv taps per channel (a bias when b_conv)",
                flops=0)  # run inline by the mixer (F.conv1d): its products are the mixer's own


def conv_flops(channels) -> sympy.Expr:
    """FLOPs of transformers' causal depthwise convolution of ``channels`` over T tokens
    (``causal_conv1d_fn``'s torch fallback, F.conv1d padded K_conv − 1 on both sides, then cut
    to T): 2 per tap of each of the max(T, K_conv) + K_conv − 1 outputs it computes, the input
    padded to K_conv where the cache's prefill is shorter (``LinearAttentionLayer.update_conv_state``)."""
    return 2 * B * channels * K_conv * (sympy.Max(T, K_conv) + K_conv - 1)


def _param(name: str, expr, note: str) -> Term:
    # a parameter the mixer applies itself: its products are the mixer's own (``_scan``)
    return leaf(name, expr, match=name, kind="recurrent", note=note, flops=0)


def _scan(note: str, *, flops, state) -> Term:
    """The products a mixer computes itself (no module of their own: torch counts them at the
    mixer, ``<mixer>/scan``) and the states it caches per sequence (``<mixer>/cache``): a
    part without parameters (:mod:`paramcount.model.cost`, :mod:`reference_models.hf_costs`)."""
    return leaf("scan", 0, match="scan", kind="recurrent",
                note="no parameters; the mixer's own products: " + note, flops=flops, state=state)


def mamba_mixer(name: str = "mixer", *, match: str = "mixer") -> Term:
    """Mamba's selective-scan mixer (see the module docstring)."""
    return group(
        name,
        dense("in_proj", d_e, 2 * D_IN, bias=b_proj, match="in_proj",
              note="the scan's input x and its gate z, d_in each"),
        _conv(D_IN),
        dense("x_proj", D_IN, r_dt + 2 * d_state, bias=0, match="x_proj",
              note="input-dependent Δ (rank r_dt), B and C (N each)"),
        dense("dt_proj", r_dt, D_IN, bias=1, match="dt_proj",
              note="Δ from rank r_dt to d_in channels, with a bias").with_cost(flops=0),  # inline
        _param("A_log", D_IN * d_state, "the state matrix A: N per channel (log)"),
        _param("D", D_IN, "the skip connection D, one per channel"),
        _scan("Δ's projection (dt_proj's weight, applied inline: 2·B·T·d_in·r_dt), the "
              "convolution, and the scan's read-out of its d_in × N state by C at each token "
              "(2·B·T·d_in·N); it caches the convolution's last K_conv inputs and the SSM state",
              flops=2 * B * T * D_IN * r_dt + conv_flops(D_IN) + 2 * B * T * D_IN * d_state,
              state=D_IN * (K_conv + d_state)),
        dense("out_proj", D_IN, d_e, bias=b_proj, match="out_proj"),
        match=match,
        kind="recurrent",
    )


def ssd_chunk(key: str = "chunk_size", default: int = 256) -> dict:
    """``Transformers(cost_config=...)`` of a class whose Mamba-2 scan runs in chunks of its
    config's ``key`` (``default`` when unset): the cost symbol Q_ssd that :func:`ssd_flops` reads
    (Falcon-H1's released files set 128 where its class defaults to 256)."""
    return {key: (Q_ssd, default)}


def ssd_flops(inner, chunk=Q_ssd) -> sympy.Expr:
    """FLOPs of transformers' chunked SSD scan (``mamba2_chunk_scan``'s torch path) over T tokens
    of width ``inner`` in H_ssm heads, the sequence padded to c = ⌈T/Q⌉ chunks of Q = ``chunk``:
    its five einsums, 2 per multiply-accumulate: C·B within each chunk (Q² per head, N wide), those
    scores times x (Q² of width d_in), the chunk states (Q·d_in·N, twice: from B, out by C) and
    the recurrence over the c + 1 chunk states ((c + 1)²·d_in·N)."""
    c = sympy.ceiling(T / chunk)
    q = sympy.sympify(chunk)
    return 2 * B * (c * q**2 * (H_ssm * d_state + inner) + 2 * c * q * inner * d_state
                    + (c + 1) ** 2 * inner * d_state)


def mamba2_mixer(name: str = "mixer", *, match: str = "mixer", inner=D_IN, norm=1,
                 out_bias=b_proj, chunk=Q_ssd) -> Term:
    """Mamba-2's SSD mixer (see the module docstring). ``inner``: its width d_in (x_in·d_e;
    H_ssm·d_ssm where a config sets heads and head width, as Nemotron-H's does). ``norm``: a
    0/1 symbol where the gated RMS norm is optional (Falcon-H1's mamba_rms_norm);
    ``out_bias``: out_proj's bias flag where it is set apart from in_proj's (Falcon-H1's
    projectors_bias); ``chunk``: the scan's chunk length, the cost symbol Q_ssd that the
    class's config sets (its FLOPs, :func:`ssd_flops`; the family declares its key,
    :func:`ssd_chunk`)."""
    conv_dim = inner + 2 * G_ssm * d_state
    return group(
        name,
        dense("in_proj", d_e, 2 * inner + 2 * G_ssm * d_state + H_ssm, bias=b_proj,
              match="in_proj",
              note="z (d_in), x (d_in), B and C (G·N each) and one Δ per head (H)"),
        _conv(conv_dim),
        _param("dt_bias", H_ssm, "Δ bias, one per head"),
        _param("A_log", H_ssm, "A, one scalar per head (log)"),
        _param("D", H_ssm, "the skip D, one per head"),
        rms_norm("norm", norm * inner, match="norm"),
        dense("out_proj", inner, d_e, bias=out_bias, match="out_proj"),
        _scan(f"the convolution of x, B and C, and the chunked SSD scan (chunks of {chunk}); it "
              "caches the convolution's last K_conv inputs and the d_in × N SSM state",
              flops=conv_flops(conv_dim) + ssd_flops(inner, chunk),
              state=conv_dim * K_conv + inner * d_state),
        match=match,
        kind="recurrent",
    )


def jamba_mixer(name: str = "mamba", *, match: str = "mamba") -> Term:
    """Jamba's Mamba mixer (HF ``JambaMambaMixer``): Mamba's, with RMS norms (scale only) of the
    time step Δ (r_dt), of B and of C (N each) before the scan, which Jamba adds for stability
    at scale (Lieber et al. 2024, section 6.4)."""
    base = mamba_mixer(name, match=match)
    return group(
        name,
        *base.children,
        rms_norm("dt_norm", r_dt, match="dt_layernorm"),
        rms_norm("b_norm", d_state, match="b_layernorm"),
        rms_norm("c_norm", d_state, match="c_layernorm"),
        match=match,
        kind="recurrent",
    )
