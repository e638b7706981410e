"""Memory and compute beside the parameters: the forward FLOPs and the KV cache as formula trees.

Both trees are read off an architecture's parameter tree, from what its leaves say they cost
(:data:`paramcount.core.formula.COSTS`, per instance of the leaf), never from names of families:

- **forward FLOPs** of B sequences of T tokens, as torch's ``FlopCounterMode`` counts them: two
  per multiply-accumulate of every matrix product (and convolution), so 2·B·T·d_in·d_out through
  each dense map (its bias adds none, a table lookup and a norm none), and 2·B·T·T·(d_k + d_v)·M
  for an attention's scores and the values they weigh (every query against every key of its
  sequence, as the product is computed: a mask or a window hides positions, it skips no multiply).
  Under a router only the instances one token uses compute: a term's ``active_times`` (k of E
  experts) takes the place of its ``times`` in this tree;
- **KV cache** elements after a forward of T tokens: each attention layer keeps B·T keys and
  values per head, M_kv·(d_k + d_v) per token, or fewer positions where a window drops them;
  a recurrent layer (a state-space mixer, a convolution's window) keeps a state per sequence that
  does not grow with T.

What a leaf may say (``leaf(..., macs=...)``, ``Term.with_cost``), per instance:

- ``d_in``, ``d_out``: a dense map's widths (``dense()`` sets them); its multiply-accumulates per
  token are d_in·d_out unless ``macs`` says otherwise (a tied head's d_e·v);
- ``tokens``: the positions per sequence it runs on, T by default; 1 for a pooler that reads the
  first token only (its FLOPs 2·B·1·macs); T·r where one stored instance runs r times (ALBERT's
  shared blocks: :func:`runs`; Llama 4's experts, each run on every token: T·E/k). A query's
  ``tokens`` are the queries its scores count (2·B·tokens·T·attends);
- ``flops``: the whole forward FLOPs of one instance as an expression in T and B, where they are
  not 2·B·T·macs (a causal convolution's, a state-space scan's products, measured at the module
  that holds them: a zero-parameter leaf matched ``scores`` says the scan's);
- ``scores`` (on a query): the width its scores use, when not its d_out;
- ``attends``, ``caches`` (on a fused attention projection): multiply-accumulates per (query,
  key) pair over its heads, and elements cached per token;
- ``kept`` (on a key projection or a fused one): positions the cache holds after T tokens, T by
  default; min(T, w − 1) for transformers' sliding-window layers (``DynamicSlidingWindowLayer``),
  0 where the class returns no cache (an encoder: :func:`without_cache`);
- ``state``: elements a recurrent layer caches per sequence whatever T (a Mamba mixer's
  convolution window and SSM state), measured beside the leaf (``<module>/cache``).

A leaf that says nothing and is neither a lookup, a norm nor parameter-free is *not formulated*:
:func:`forward_flops` returns its path. An architecture may declare a quantity not formulated
(``Transformers.not_formulated``, with the reason):
:func:`paramcount.model.frameworks.unformulated` says which and why.

The trees keep the parameter tree's structure (``blocks × L``), names and match patterns, so the
verifier attributes what a measurement finds to the same components, and the prover decides them
like a parameter count (T and B among the hyperparameters). Bytes are elements times the bytes
of a dtype (:mod:`paramcount.model.dtypes`).
"""

from __future__ import annotations

import dataclasses
import re

import sympy

from paramcount.core.formula import Term, group, leaf
from paramcount.core.symbols import B, L, T

__all__ = ["QUANTITIES", "active", "attention_parts", "forward_flops", "kv_cache", "macs",
           "runs", "sliding_kept", "with_kept",
           "without_cache"]

#: The quantities, by the name the CLI, the JSON and the report give them.
QUANTITIES = {
    "flops": "forward FLOPs for B sequences of T tokens (2 per multiply-accumulate)",
    "kv": "KV cache elements after B sequences of T tokens",
}
_FREE = ("embedding", "position", "norm")  # kinds that multiply nothing: lookups, scales


def macs(term: Term) -> sympy.Expr | None:
    """The multiply-accumulates one token makes through one instance of the leaf ``term``: what
    it says (``macs``, or d_in·d_out), 0 for a lookup, a norm or a leaf without parameters,
    None where it says nothing (a leaf whose compute is not formulated)."""
    cost = term.costs()
    if "macs" in cost:
        return cost["macs"]
    if "d_in" in cost and "d_out" in cost:
        return cost["d_in"] * cost["d_out"]
    if term.expr == 0 or term.kind in _FREE:
        return sympy.Integer(0)
    return None


def attention_parts(node: Term) -> dict[str, sympy.Expr] | None:
    """What an attention group (or a fused projection) implies: ``attends``, multiply-accumulates
    per (query, key) pair over its heads; ``caches``, elements cached per token; ``kept``, the
    positions its cache holds after T tokens; ``at``, the child its measurement sits beside (the
    key projection, or the fused one). None for any other node."""
    if node.is_leaf:
        cost = node.costs()
        if "attends" not in cost:
            return None
        return {"attends": cost["attends"], "caches": cost.get("caches", sympy.Integer(0)),
                "kept": cost.get("kept", T), "queries": cost.get("tokens", T), "at": node}
    parts = {c.name: c for c in node.children if c.is_leaf}
    if not {"query", "key", "value", "output"} <= set(parts):
        return None
    q, k, val, o = (parts[n].costs() for n in ("query", "key", "value", "output"))
    if not all("d_out" in c for c in (q, k, val)) or "d_in" not in o:
        return None
    return {"attends": q.get("scores", q["d_out"]) + o["d_in"], "caches": k["d_out"] + val["d_out"],
            "kept": k.get("kept", T), "queries": q.get("tokens", T), "at": parts["key"]}


def _beside(at: Term, name: str) -> str | None:
    """The match pattern of a measurement ``name`` made on the module that holds ``at`` (its
    attention): ``at``'s pattern with its last path segment replaced."""
    if not at.match:
        return name
    return re.sub(r"[^/]*$", name, at.match, count=1) if "/" in at.match else name


def _mirror(node: Term, leaf_fn, extra_fn) -> Term | None:
    """``node`` with each leaf replaced by ``leaf_fn(leaf)`` (dropped when None) and a group's
    ``extra_fn(group)`` terms added; groups left empty are dropped."""
    if node.is_leaf:
        return leaf_fn(node)
    kids = [m for c in node.children if (m := _mirror(c, leaf_fn, extra_fn)) is not None]
    kids += [t for c in node.children if c.is_leaf for t in extra_fn(c)]
    kids += extra_fn(node) if not node.is_leaf and attention_parts(node) else []
    if not kids:
        return None
    return dataclasses.replace(node, children=tuple(kids), expr=None, active_times=None)


def forward_flops(root: Term) -> tuple[Term, tuple[str, ...]]:
    """The forward-FLOPs tree of the parameter tree ``root``, and the paths of the leaves whose
    compute it could not formulate (empty when the tree is whole)."""
    missing: list[str] = []
    paths = {id(lf.term): lf.path for lf in root.leaves()}

    def one(t: Term) -> Term | None:
        cost = t.costs()
        if "flops" in cost:
            if cost["flops"] == 0:
                return None
            return dataclasses.replace(t, expr=cost["flops"], cost=(), trainable=True, part=None,
                                       note=f"{_show(cost['flops'])} FLOPs")
        m = macs(t)
        if m is None:
            missing.append(paths.get(id(t), t.name))
            return None
        if m == 0:
            return None
        n = cost.get("tokens", T)
        return dataclasses.replace(t, expr=2 * B * n * m, cost=(), trainable=True,
                                   note=f"2·B·{_show(n)}·({_show(m)}) multiply-accumulates")

    def scores(t: Term) -> list[Term]:
        parts = attention_parts(t)
        if parts is None:
            return []
        n = parts["queries"]
        return [leaf("scores", 2 * B * n * T * parts["attends"], match=_beside(parts["at"], "scores"),
                     kind="attention",
                     note=f"queries against the T keys, and the values: 2·B·{_show(n)}·T·"
                          f"({_show(parts['attends'])})")]

    tree = _mirror(active(root), one, scores) or group(root.name, leaf("none", 0))
    return tree, tuple(missing)


def kv_cache(root: Term, per_head: bool = False) -> Term:
    """The KV-cache tree of the parameter tree ``root``: elements kept after B sequences of T
    tokens, one leaf per attention (its layers' multiplicity above it). ``per_head``: the named
    convention of a cache that keeps every query head's own key and value, decompressed (an
    attention's ``attends`` per token in place of its ``caches``: no key/value heads shared, no
    latent; the same positions, the same states), beside which grouped-query and latent
    attention show what they save. Not a measurement."""
    def cache(t: Term) -> list[Term]:
        state = t.costs().get("state") if t.is_leaf else None
        if state:
            return [leaf("cache", B * state, match=_beside(t, "cache"), kind=t.kind,
                         note=f"a state per sequence: B·({_show(state)})")]
        parts = attention_parts(t)
        if parts is None or parts["kept"] == 0 or parts["caches"] == 0:
            return []
        width = parts["attends"] if per_head else parts["caches"]
        return [leaf("cache", B * parts["kept"] * width, match=_beside(parts["at"], "cache"),
                     kind="attention",
                     note=f"keys and values: B·{_show(parts['kept'])}·({_show(width)})")]

    return _mirror(root, lambda t: None, cache) or group(root.name, leaf("none", 0))


def active(root: Term) -> Term:
    """``root`` with every term's ``active_times`` (k of E experts) in place of its ``times``:
    the instances one token runs through."""
    kids = tuple(active(c) for c in root.children)
    if root.active_times is None:
        return dataclasses.replace(root, children=kids) if kids != root.children else root
    return dataclasses.replace(root, children=kids, times=root.active_times, active_times=None)


def runs(root: Term, times) -> Term:
    """``root`` with every leaf computing ``times`` over for each instance stored (ALBERT's
    shared blocks, each run by L/L_g layers): its ``tokens`` (and a query's, its scores) times
    ``times``."""
    if root.is_leaf:
        return root.with_cost(tokens=root.costs().get("tokens", T) * times)
    return dataclasses.replace(root, children=tuple(runs(c, times) for c in root.children))


def with_kept(root: Term, kept) -> Term:
    """``root`` with every attention's cache holding ``kept`` positions (set on the term that
    says it: the key projection, or a fused one): a window's (:func:`sliding_kept`), or 0 for a
    class that returns no cache (an encoder, its positions attending both ways)."""
    at = {id(p["at"]) for _, _, t in root.walk() if (p := attention_parts(t)) is not None}

    def walk(t: Term) -> Term:
        if t.is_leaf:
            return t.with_cost(kept=kept) if id(t) in at else t
        return dataclasses.replace(t, children=tuple(walk(c) for c in t.children))

    return walk(root)


def without_cache(root: Term) -> Term:
    """``root`` with no attention cache (:func:`with_kept` 0)."""
    return with_kept(root, 0)


#: The window of a layer that keeps every position (a config's ``sliding_window`` null, a class
#: whose default is none): longer than any context, so min(T, w − 1) is T.
NO_WINDOW = 2**62


def sliding_kept(window, full=0, layers=L) -> sympy.Expr:
    """Positions an attention layer of a ``layers`` stack keeps after T tokens, on average, where
    ``full`` of them attend to everything (T each) and the rest in a sliding ``window``
    (transformers' DynamicSlidingWindowLayer: min(T, window − 1)); times ``layers``, exact."""
    slide = sympy.Min(T, window - 1)
    return slide if full == 0 else slide + full * (T - slide) / layers


def _show(expr) -> str:
    from paramcount.core.formula import pretty

    return pretty(expr)
