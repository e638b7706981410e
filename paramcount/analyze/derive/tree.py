"""A derivation as the formula tree the hand-written architectures use, and as an architecture.

- **Symbols** are the config's field names (``hidden_size``, ``first_k_dense_replace``), declared
  in :mod:`paramcount.core.symbols` as a user's module would; flags are 0/1 symbols.
- **Groups** follow module paths with layer indices folded (``model.layers.self_attn``); a leaf
  is one module's parameters (``q_proj``: weight and bias), a persistent buffer or a frozen
  parameter a leaf of its own (not trainable). A leaf repeats as often as its weights do (``times``: num_hidden_layers,
  num_hidden_layers − first_k_dense_replace, 1 − tie_word_embeddings); a group whose children all
  repeat alike takes their ``times``.
- **Kinds** come from names by one rule (:func:`kind_of`): the first of the leaf's own name, then
  its modules outward, that a rule of :data:`KIND_RULES` matches, in the rules' order; else
  ``other``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from functools import reduce
from typing import TYPE_CHECKING

import sympy

from paramcount.analyze.derive import fit as fitting
from paramcount.core import symbols
from paramcount.core.formula import Term, group, leaf
from paramcount.model.components import ssm

if TYPE_CHECKING:  # annotations only (core imports this module's ties where it checks them)
    from paramcount.analyze.derive.core import Derivation

__all__ = ["KIND_RULES", "architecture", "expr", "field_symbols", "kind_of", "tree"]

# (kind, regex over one name): the first rule matching decides. Norms before attention
# (``q_a_layernorm`` sits in ``self_attn``), positions before embeddings (``embed_positions``).
KIND_RULES: tuple[tuple[str, str], ...] = (
    ("norm", r"norm|^ln|_ln|^ln_f$"),
    ("position", r"pos|^wpe$"),
    ("embedding", r"embed|^wte$|^tok"),
    ("expert", r"expert"),
    ("router", r"^(gate|router)($|_(?!proj))"),
    ("head", r"lm_head|^head$|^score$|classifier"),
    ("cross-attention", r"cross|encoder_attn"),
    ("attention", r"attn|attention|^[qkvo]_|qkv|query|key|value"),
    ("feed-forward", r"mlp|ffn|feed_forward|^fc|up_proj|down_proj|gate_proj|^w[123]$|dense"),
    ("recurrent", "|".join((*ssm.MODULE_NAMES, "conv", "rnn", "lstm", "gru", "linear_attn", "mix"))),
)


def kind_of(path: list[str]) -> str:
    """The kind of a leaf at ``path`` (module names from the root, the leaf's last)."""
    for name in reversed(path):
        for kind, rule in KIND_RULES:
            if re.search(rule, name):
                return kind
    return "other"


def field_symbols(d: Derivation) -> dict[str, sympy.Symbol]:
    out = {}
    counts = {a for t in d.templates for _, atoms in t.mult for a in atoms}
    for name, value in d.fields.items():
        flag = name in d.flags
        zero_ok = not flag and (value == 0 or name in counts)
        try:  # its kind is this derivation's, whatever another derived before (redeclare)
            out[name] = symbols.declare(name, f"transformers config field {name}", flag=flag,
                                        zero_ok=zero_ok, redeclare=True)
        except ValueError:  # a symbol of paramcount's own vocabulary: its declaration holds
            out[name] = symbols.info(name).symbol
    return out


def expr(poly: fitting.Poly, syms: dict[str, sympy.Symbol]) -> sympy.Expr:
    def atom(a: fitting.Atom) -> sympy.Expr:
        if isinstance(a, str):
            return syms[a]
        x = atom(a[1])
        if a[0] == "isqrt":
            return sympy.floor(sympy.sqrt(x))
        other = sympy.Rational(a[2]) if fitting.constant(a[2]) else syms[a[2]]
        if a[0] == "pow":
            return x ** other
        if a[0] == "eq":
            return sympy.KroneckerDelta(x, other)
        if a[0] == "minus":
            return x - other
        if a[0] == "times":
            return x * other
        return (sympy.ceiling if a[0] == "ceil" else sympy.floor)(x / other)

    return sympy.Add(*(c * sympy.Mul(*(atom(a) for a in atoms)) for c, atoms in poly))


def _regex(template: str) -> str:
    def seg(s: str) -> str:  # a Keras layer's automatic suffix: dense, dense_1 ... (dense_*)
        if s == "*":
            return r"\d+"
        return re.escape(s[:-2]) + r"(_\d+)?" if s.endswith("_*") else re.escape(s)

    template = template.split("@")[0]  # a template split by layer kind: one regex for all
    return "^" + "/".join(seg(s) for s in template.split(".")) + "$"


def ties(d: Derivation) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Templates a flag removes that another template of the same shape stays for: the weight
    tied to it, counted once there (an LM head tied to the token embedding): template → (the
    template it is tied to, the flags that tie it). Not those a build with the flags on does
    not share with it (``d.untied``, :func:`paramcount.analyze.derive.claims.untied`)."""
    out = {}
    for t in d.templates:
        if t.name in d.untied:  # the build with the flags on does not share it: removed
            continue
        on = [f for f in d.flags if any(f in atoms for _, atoms in t.mult)]
        if not on or fitting.evaluate(t.mult, {**d.fields, **dict.fromkeys(on, 1)}) != 0:
            continue
        same = [u.name for u in d.templates if u is not t and u.role == t.role
                and sorted(u.dims, key=repr) == sorted(t.dims, key=repr) and not any(
                    f in atoms for f in on for _, atoms in u.mult)]
        if same:
            out[t.name] = (same[0], tuple(on))
    return out


def tree(d: Derivation) -> Term:
    syms = field_symbols(d)
    root: dict = {}
    for t in d.templates:
        segs = [s.removesuffix("_*") for s in t.name.split("@")[0].split(".") if s != "*"]
        mod, param = segs[:-1], segs[-1]
        if t.role != "trainable" or not mod:  # a frozen weight beside trainable ones too
            mod = [*mod[:-1], "_".join([*mod[-1:], param])]
        node = root
        for s in mod:
            node = node.setdefault(s, {})
        node.setdefault("", []).append(t)
    at = {syms[k]: v for k, v in d.fields.items() if k in syms}
    return group(d.model_type.replace(".", "_"), *_terms(root, [], syms, ties(d), at),
                 note=f"derived from {d.cls} builds (transformers "
                      f"{d.versions.get('transformers', '?')})")


def _terms(node: dict, path: list[str], syms, tied, at) -> list[Term]:
    out: list[Term] = []
    for name, child in node.items():
        if name == "":
            continue
        sub = [*path, name]
        own = child.get("", [])
        kids = _terms(child, sub, syms, tied, at)
        if own:
            to = [tied[t.name] for t in own if t.name in tied]
            lf = _leaf(name if not kids else "self", own, sub, syms,
                       ".".join(s for s in to[0][0].split(".") if s != "*") if to else "",
                       to[0][1] if to else (), at)
            kids = [*kids, lf] if kids else []
            if not kids:
                out.append(lf)
                continue
        times = {k.times for k in kids}
        if len(times) == 1 and (t := times.pop()) != 1:
            kids = [Term(k.name, k.expr, k.children, sympy.Integer(1), k.match, k.note,
                         k.trainable, k.active_times, k.part, k.kind) for k in kids]
            out.append(group(name, *kids, times=t))
        else:
            out.append(group(name, *kids))
    return out


def _leaf(name: str, templates, path: list[str], syms, tied: str = "",
          flags: tuple[str, ...] = (), at: dict | None = None) -> Term:
    """One leaf of ``templates``' weights: their common multiplicity its ``times``, positive
    at the derived config's values ``at`` (LaraMini's linear layers, num_hidden_layers −
    the attention kinds' counts: not the negative of both), else where it vanishes there, as
    written with no leading minus (L − k, 1 − tie_word_embeddings)."""
    mults = [expr(t.mult, syms) for t in templates]
    common = reduce(sympy.gcd, mults)
    common = sympy.factor(common.as_content_primitive()[1]) if common.free_symbols \
        else sympy.Integer(1)
    at0 = sympy.sympify(common.xreplace(dict.fromkeys(common.free_symbols, 0)))
    here = sympy.sympify(common.xreplace(at or {}))
    if here.is_negative or (not here.is_positive and (
            at0.is_negative or (at0 == 0 and common.could_extract_minus_sign()))):
        common = sympy.expand(-common)  # L − k and 1 − tie_word_embeddings, not a negative body
    body = sympy.Add(*(sympy.cancel(m / common) * sympy.Mul(*(expr(x, syms) for x in t.dims))
                       for m, t in zip(mults, templates, strict=True)))
    match = "|".join(_regex(t.name) for t in templates)
    role = templates[0].role
    note = "" if role == "trainable" else f"a {role} weight, counted apart"
    if tied:
        note = f"counted once, as {tied}, when tied ({' = '.join(flags)} = 1)"
    return leaf(name, sympy.factor(body) if body.free_symbols else body, match=match,
                times=common, trainable=role == "trainable", note=note, kind=kind_of(path))


def architecture(d: Derivation, reference: Callable, arch_id: str | None = None):
    """A registry architecture of the derived formula (not registered): what ``prove``,
    ``count`` and the renderers take."""
    from paramcount.core.hparams import Divisible, Relation
    from paramcount.model.registry import Architecture

    syms = field_symbols(d)
    formula = tree(d)
    cons: list[Divisible | Relation] = []

    def divisor(b: str):  # one that changes no weight divides at its base value (OPT's heads)
        if "+" in b:  # a per-layer list's counts together (paramcount.analyze.derive.layers)
            return sympy.Add(*(divisor(x) for x in b.split("+")))
        if b.startswith("2*"):  # twice a field (an even head_dim: RoPE's check)
            return 2 * divisor(b[2:])
        return syms[b] if b in syms else int(d.explicit[b]) if b in d.explicit else int(b)

    def dividend(a: str):  # a field, the quotient a // b of two (an even head_dim; a twice a
        if "//" in a:  # field, Zamba2's 2·hidden_size), or a product of two (Zamba's
            x, y = a.split("//")  # mamba_expand·hidden_size)
            return sympy.floor(divisor(x) / divisor(y))
        if "*" in a:
            return sympy.Mul(*(syms[x] for x in a.split("*")))
        return syms[a]

    for op, a, b in [*d.constraints, *d.domain]:
        if op == "divides":
            cons.append(Divisible(dividend(a), divisor(b)))
        elif (when := _without_floor(formula, syms, d.flags, divisor(b), divisor(a))) == 1 \
                or (when != 0 and (op, a, b) in d.domain):
            # a domain's order binds every case the floor's split does not keep it in (the
            # formula is not the build's outside it); a constraint's, whatever a build breaking
            # it alone refuses, is left to the split (MobileBERT's heads <= hidden, bottleneck
            # or not: the prover writes hidden over another width where the floor is absent)
            why = ("the formula's domain: derived and proven within it"
                   if (op, a, b) in d.domain else "a build breaking it is refused")
            cons.append(Relation(divisor(a), op, divisor(b), reason=why,
                                 when=None if when == 1 else when))
    for op, a, b, f in d.conditional:  # (Zamba's tie regex: two hybrid layers where tied)
        cons.append(Relation(divisor(a), op, divisor(b), when=syms[f],
                             reason=f"a build breaking it with {f} = 1 is refused"))
    # fields the derivation could not vary: fixed at their values, where alone the formula is
    # exact (any other value is refused, in one line: "it is fixed to V there")
    held = {f: _declare(f) for f in d.held}
    # a field the model insists equals a hyperparameter: that hyperparameter, unless given
    # (another value is refused, as the builds with them unequal were)
    same = {}
    for f, to in d.equal.items():
        same[f] = _declare(f)
        cons.append(Relation(same[f], "==", syms[to], reason="a build with them unequal is "
                                                             "refused"))
    return Architecture(
        id=arch_id or f"{d.model_type}_derived", title=f"{d.cls} (derived)",
        source=f"derived from transformers {d.versions.get('transformers', '?')} builds of "
               f"{d.cls}",
        formula=formula, required=(), reference=reference,
        counting="every parameter the transformers class builds (tied weights once); "
                 "persistent buffers and frozen parameters apart",
        optional={**{syms[k]: v for k, v in d.fields.items()},
                  **{same[k]: syms[to] for k, to in d.equal.items()}}, constraints=tuple(cons),
        fixed={held[k]: sympy.Integer(v) for k, v in d.held.items()},
        family="derived", frameworks=("transformers",))


def _without_floor(formula: Term, syms, flags, b: sympy.Expr, a: sympy.Expr) -> sympy.Expr:
    """Where ⌊b / a⌋ stands in no term of ``formula``, as a polynomial in the flags, 1 at each
    setting of them without it, else 0: its split keeps b ≥ a (a quotient of at least 1) only
    where it stands, so an order a ≤ b binds the rest alone (Zamba 2's ⌊hybrid / blocks⌋
    adapters, untied; tied, min(blocks, hybrid) blocks are built, no polynomial of the two)."""
    total = formula.total()
    floor = sympy.floor(b / a)
    if not total.has(floor):
        return sympy.Integer(1)
    names = [syms[f] for f in flags]
    where = sympy.Integer(0)
    for bits in itertools.product((0, 1), repeat=len(names)):
        if not total.xreplace(dict(zip(names, bits, strict=True))).has(floor):
            where += sympy.Mul(*(x if v else 1 - x for x, v in zip(names, bits, strict=True)))
    return sympy.expand(where)


def _declare(f: str) -> sympy.Symbol:
    """A config field's symbol beside the hyperparameters (one held, one following another)."""
    try:
        return symbols.declare(f, f"transformers config field {f}", zero_ok=True, redeclare=True)
    except ValueError:  # a symbol of paramcount's own vocabulary: its declaration holds
        return symbols.info(f).symbol
