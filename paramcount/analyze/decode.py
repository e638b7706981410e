"""What a generated token costs: the FLOPs of one forward of one new token per sequence against the
cache that B sequences of T tokens left, as a formula tree beside the forward FLOPs
(:mod:`paramcount.model.cost`), read off the same parameter tree from what its leaves say:

- a dense map runs on the new token only: 2·B·1·macs where the forward's is 2·B·T·macs (a leaf
  that runs r times per token, ALBERT's shared blocks, r times; one whose positions are not T's,
  an image's patches, not at all: the image is in the cache);
- an attention's new query meets the positions its cache holds after T tokens and its own:
  2·B·(kept + 1)·attends, where kept is T, or min(T, w − 1) under transformers' sliding window
  (``DynamicSlidingWindowLayer`` returns the w − 1 it kept and the new one).

A compressed latent's projections (DeepSeek's ``kv_b_proj``, after the fused projection whose
output the cache keeps) run over every cached position and the new one at each step:
2·B·(kept + 1)·macs, transformers decompressing the whole cache anew.

Not formulated (with the reason): a class that caches nothing (an encoder generates no token),
an encoder-decoder (its step runs the decoder only, its cross-attention against the source), a
leaf whose forward FLOPs are its own expression (a recurrent mixer's scan: its one-token step is
another computation), a router whose experts run only in the class's own loop.

The tree is checked against ``reference_models.hf_decode`` (``tests/test_costs.py``: the first
example set of each architecture at three contexts, every set with ``--runslow``); it is not
proven yet, and says so (:func:`paramcount.analyze.cost_status.unprovable`).
"""

from __future__ import annotations

import dataclasses

import sympy

from paramcount.core.formula import Term, group, leaf, pretty
from paramcount.core.symbols import B, T
from paramcount.model.cost import active, attention_parts, macs

__all__ = ["decode_flops", "not_decoded", "why_not"]


def decode_flops(root: Term) -> tuple[Term, tuple[str, ...]]:
    """The FLOPs-per-generated-token tree of the transformers-side parameter tree ``root``, and
    the paths of the leaves whose one-token step it does not formulate (empty when whole)."""
    missing: list[str] = []
    paths = {id(lf.term): lf.path for lf in root.leaves()}

    def dense(t: Term, positions=None) -> Term | None:
        cost, m = t.costs(), macs(t)
        # a leaf's own FLOPs expression: a scan's (in T), whose step is another computation, or
        # an image's (not in T), in the cache already
        own = sympy.sympify(cost.get("flops", 0))
        if T in own.free_symbols or (m is None and "flops" not in cost):
            missing.append(paths.get(id(t), t.name))
        if m is None or "flops" in cost:
            return None
        n = _one(cost.get("tokens", T)) if positions is None else positions
        if m == 0 or n == 0:
            return None
        return dataclasses.replace(t, expr=2 * B * n * m, cost=(), trainable=True,
                                   note=f"2·B·{pretty(n)}·({pretty(m)}) multiply-accumulates"
                                        + ("" if positions is None else ", over every position "
                                           "the cache holds and the new one"))

    def scores(t: Term) -> list[Term]:
        parts = attention_parts(t)
        n = _one(parts["queries"]) if parts is not None else 0
        if parts is None or n == 0:
            return []
        keys = parts["kept"] + 1
        at = parts["at"].match
        return [leaf("scores", 2 * B * n * keys * parts["attends"], kind="attention",
                     match=at.rsplit("/", 1)[0] + "/scores" if at and "/" in at else "scores",
                     note=f"the new query against {pretty(keys)} keys, and the values: "
                          f"2·B·{pretty(n)}·{pretty(keys)}·({pretty(parts['attends'])})")]

    def walk(node: Term, positions=None) -> Term | None:
        if node.is_leaf:
            return dense(node, positions)
        over = _decompressing(node)
        kids = [m for c in node.children if (m := walk(c, over.get(id(c)))) is not None]
        for c in (*(c for c in node.children if c.is_leaf), node):
            kids += scores(c)
        return dataclasses.replace(node, children=tuple(kids), expr=None,
                                   active_times=None) if kids else None

    return walk(active(root)) or group(root.name, leaf("none", 0)), tuple(missing)


def _decompressing(node: Term) -> dict[int, sympy.Expr]:
    """The projections of a cached latent in the group ``node`` (by id), each with the positions
    it runs on at a step: dense maps after a fused projection that says what the attention caches
    (its ``at``), other than the group's last (its output). A step runs them over every cached
    position and the new one (DeepSeek's ``kv_b_proj`` decompresses the whole latent cache)."""
    kids = node.children
    fused = [i for i, c in enumerate(kids) if c.is_leaf and attention_parts(c) is not None]
    maps = [i for i, c in enumerate(kids) if c.is_leaf and macs(c) not in (None, 0)]
    if not fused or not maps:
        return {}
    keys = attention_parts(kids[fused[0]])["kept"] + 1  # type: ignore[index]
    return {id(kids[i]): keys for i in maps if fused[0] < i < maps[-1]}


def _one(tokens) -> sympy.Expr:
    """The positions a leaf runs on for one new token: its ``tokens`` at T = 1 (T·r: r), none
    where they are not T's (an image's patches, in the cache already)."""
    tokens = sympy.sympify(tokens)
    return tokens.subs(T, 1) if T in tokens.free_symbols else sympy.Integer(0)


def not_decoded(formula: Term, caches: bool) -> str | None:
    """Why the transformers-side tree ``formula`` (of a class that returns a cache, or not:
    ``caches``) has no decode tree, or None."""
    if not caches:
        return "its class returns no cache: an encoder generates no token"
    if any(lf.kind == "cross-attention" for lf in formula.leaves()) \
            or {"encoder", "decoder"} <= {c.name for c in formula.children}:
        return ("an encoder-decoder's step (the decoder alone, its cross-attention against the "
                "cached source) is not formulated")
    _, missing = decode_flops(formula)
    if missing:
        return "a one-token step not formulated for " + ", ".join(missing)
    return None


def why_not(arch) -> str | None:
    """Why the architecture ``arch`` has no FLOPs-per-generated-token tree (its transformers class
    runs its experts only in its own loop, or :func:`not_decoded`), or None."""
    from paramcount.model.cost import kv_cache
    from paramcount.model.frameworks import for_framework

    ref = arch.transformers.pick(None) if arch.transformers is not None else None
    if ref is not None and not ref.experts_on_meta and arch.formula.has_active:
        return ("its experts run only in the class's own loop over the routed ones: a step needs "
                "real data, not the meta device")
    formula = for_framework(arch, "transformers").formula
    caches = ref is not None and getattr(ref, "caches", True) and kv_cache(formula).total() != 0
    return not_decoded(formula, bool(caches))
