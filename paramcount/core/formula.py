"""The formula tree: an architecture's parameter count as a tree of named terms.

A :class:`Term` is either a *leaf*, holding a SymPy expression for the parameters of one
component (a projection, a norm, an embedding table), or a *group* of child terms. Any term may be
repeated ``times`` (``blocks × L``). The total, the per-component breakdown, the LaTeX and the
verification against Keras all read this one tree, so nothing is computed twice in two places.

A term may also carry ``match``, a regular expression for one or more whole segments of a Keras
weight path (``transformer_layer_\\d+``, ``self_attention/query``). A Keras weight belongs to a leaf
when the leaf's ``match`` and the ``match`` of every ancestor that has one each match a run of
whole segments of the weight's path. That is how the verifier attributes weights to components.

A leaf may also carry ``part = (i, k)``: it then claims only the i-th of k equal slices, along the
last axis, of each weight it matches. Keras fuses an LSTM's four gates (a GRU's three) into one
kernel, recurrent kernel and bias, gate after gate along the last axis; ``part`` lets each gate be a
leaf of its own. The k leaves that share a weight must hold slices 0..k-1 between them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property

import sympy

from paramcount.core import numcore

__all__ = ["COSTS", "FUSED", "KINDS", "Leaf", "Term", "group", "leaf", "pretty", "to_int", "zero"]


def pretty(expr) -> str:
    """An expression as paramcount prints it in text (``2·L·d_e``, ``d_e^2``): the one printer
    of text output; LaTeX is SymPy's."""
    return str(expr).replace("**", "^").replace("*", "·")


# ``part`` of leaves that share a fused weight of unequal pieces (see Term).
FUSED = ("fused",)

#: What a leaf may say it costs beside its parameters (``Term.cost``, per instance): a dense map's
#: ``d_in``/``d_out``, ``macs`` where not d_in·d_out, ``tokens`` it runs on (a pooler's 1), whole
#: ``flops`` in T and B (a conv, a scan), a query's ``scores`` width, a fused attention's
#: ``attends``/``caches``, a window's ``kept``, a recurrent ``state`` per sequence. See model.cost.
COSTS = ("d_in", "d_out", "macs", "tokens", "flops", "scores", "attends", "caches", "kept", "state")

#: What a component is, set by the component that makes it (``embedding()`` makes an
#: ``embedding``, ``attention()`` an ``attention`` group ...). A leaf without a kind of its own
#: takes its nearest ancestor's. The non-embedding count, the plots and the report read kinds,
#: never names. ``projection``: a dense map between widths outside the blocks (ALBERT's
#: d_emb → d_e), a matrix applied to every token, not a lookup table.
KINDS = ("embedding", "position", "attention", "cross-attention", "feed-forward", "expert",
         "router", "norm", "recurrent", "head", "projection", "other")


@dataclass(frozen=True)
class Leaf:
    """A leaf of a formula tree, flattened: where it sits and what it costs in all."""

    path: str  # dotted component path, e.g. "blocks.attention.query"
    term: Term
    multiplier: sympy.Expr  # product of the ``times`` of the leaf and its ancestors
    active_multiplier: sympy.Expr  # the same with ``active_times`` where a term has one
    patterns: tuple[re.Pattern[str], ...]  # ancestors' and the leaf's own ``match``
    kind: str | None = None  # the leaf's kind, or its nearest ancestor's (see KINDS)

    @cached_property
    def expr(self) -> sympy.Expr:
        """The leaf's parameters in the whole model (multiplicity included)."""
        return self.multiplier * self.term.expr

    @cached_property
    def active_expr(self) -> sympy.Expr:
        """The leaf's parameters one token uses (fewer than ``expr`` only under a router)."""
        return self.active_multiplier * self.term.expr

    def claims(self, weight_path: str) -> bool:
        if not self.term.match:
            return False
        # the leaf's own pattern first: it is the selective one (an ancestor's, a block's
        # ``layer_\d+``, matches most of a model's weights)
        return all(p.search(weight_path) for p in reversed(self.patterns))


def _segment_pattern(match: str) -> re.Pattern[str]:
    return re.compile(r"(?:^|/)(?:" + match + r")(?:/|$)")


@dataclass(frozen=True)
class Term:
    """A named term of a parameter-count formula.

    Args:
        name: str. Component name shown in breakdowns (``attention``, ``norm_1``, ``head``).
        expr: sympy expression or None. The parameters of one instance, for a leaf.
        children: tuple of Term. The parts, for a group.
        times: sympy expression. How many instances the model holds (``L`` for a block).
        match: str or None. Regex for whole path segments of the Keras weights this term covers.
        note: str. Why the term is what it is (e.g. "sinusoidal: computed, not learned").
        trainable: bool. Whether the weights are trainable (counted apart otherwise).
        active_times: sympy expression or None. Instances one token uses, where fewer than
            ``times`` (top-k of E experts); None means all of them.
        part: (int, int) or None. For a leaf: claim only slice ``i`` of ``k`` equal slices (last
            axis) of each matched weight, e.g. one gate of a fused LSTM kernel; None: all of it.
            ``(i, k, axis)`` slices another axis (transformers' Mixtral stacks gate and up
            along axis 1 of an (E, 2·d_f, d_e) tensor). ``FUSED``: the leaves that claim a
            weight share it, each its own count, in tree order (transformers' Phi-3 fuses q, k
            and v of unequal widths into one ``qkv_proj``): only their sum is checked.
    """

    name: str
    expr: sympy.Expr | None = None
    children: tuple[Term, ...] = ()
    times: sympy.Expr = sympy.Integer(1)  # noqa: RUF009 (an immutable SymPy number)
    match: str | None = None
    note: str = ""
    trainable: bool = True
    active_times: sympy.Expr | None = None
    part: tuple[int, ...] | None = None
    kind: str | None = None  # see KINDS; None: the nearest ancestor's
    # What one instance of a leaf costs beside its parameters (see COSTS), as (name, expr) pairs:
    # the memory-and-compute trees of paramcount.model.cost read these, never names.
    cost: tuple[tuple[str, sympy.Expr], ...] = field(default=(), metadata={"cost": True})
    _pattern: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)
    # Sums and leaves, built once: a term is immutable, and building SymPy sums is what verify
    # and the report spent their time on when every hyperparameter set rebuilt them.
    _memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.expr is not None and self.children:
            raise ValueError(f"term {self.name!r}: a term is a leaf or a group, not both")
        if self.expr is None and not self.children:
            raise ValueError(f"term {self.name!r}: a group needs children (use zero() for none)")
        if "." in self.name:
            raise ValueError(f"term {self.name!r}: names may not contain '.'")
        names = [c.name for c in self.children]
        dupes = sorted({x for x in names if names.count(x) > 1})
        if dupes:
            raise ValueError(f"term {self.name!r}: duplicate child names {dupes}")
        object.__setattr__(self, "expr", None if self.expr is None else sympy.sympify(self.expr))
        object.__setattr__(self, "times", sympy.sympify(self.times))
        if self.part is not None and self.part != FUSED:
            i, k = self.part[:2]
            axis = self.part[2] if len(self.part) == 3 else -1
            if (self.children or len(self.part) not in (2, 3)
                    or not all(isinstance(x, int) for x in (i, k, axis)) or not 0 <= i < k):
                raise ValueError(f"term {self.name!r}: part must be (i, k) or (i, k, axis) with "
                                 "0 <= i < k, or FUSED, on a leaf")
        if self.part == FUSED and self.children:
            raise ValueError(f"term {self.name!r}: part must be on a leaf")
        if self.kind is not None and self.kind not in KINDS:
            raise ValueError(f"term {self.name!r}: unknown kind {self.kind!r}; kinds: {KINDS}")
        if self.active_times is not None:
            object.__setattr__(self, "active_times", sympy.sympify(self.active_times))
        if self.cost:
            unknown = sorted({k for k, _ in self.cost} - set(COSTS))
            if unknown or self.children:
                raise ValueError(f"term {self.name!r}: cost is a leaf's, of {COSTS}; not {unknown}")
            object.__setattr__(self, "cost", tuple(sorted((k, sympy.sympify(e))
                                                          for k, e in dict(self.cost).items())))
        if self.match:
            object.__setattr__(self, "_pattern", _segment_pattern(self.match))

    # --- structure ------------------------------------------------------------------------------
    @property
    def is_leaf(self) -> bool:
        return self.expr is not None

    def with_cost(self, **cost) -> Term:
        """A copy of the leaf with ``cost`` added to what it says it costs (see COSTS)."""
        return dataclasses.replace(self, cost=tuple({**dict(self.cost), **cost}.items()))

    def costs(self) -> dict[str, sympy.Expr]:
        """The leaf's ``cost`` as a mapping (see COSTS); empty where it says none."""
        return dict(self.cost)

    def per_instance(self) -> sympy.Expr:
        """Parameters of one instance (``times`` not applied)."""
        if self.is_leaf:
            return self.expr
        if "per_instance" not in self._memo:
            self._memo["per_instance"] = sympy.Add(*(c.total() for c in self.children))
        return self._memo["per_instance"]

    def total(self) -> sympy.Expr:
        """Parameters of all instances of this term."""
        return self.times * self.per_instance()

    def trainable_total(self, trainable: bool = True) -> sympy.Expr:
        """The total over the leaves that are (or are not) trainable, keeping the tree's
        structure (``L·(...)``) so it prints the way the model is built."""
        if self.is_leaf:
            return self.total() if self.trainable == trainable else sympy.Integer(0)
        key = ("trainable_total", trainable)
        if key not in self._memo:
            self._memo[key] = self.times * sympy.Add(*(c.trainable_total(trainable)
                                                       for c in self.children))
        return self._memo[key]

    def active_total(self) -> sympy.Expr:
        """Parameters one token uses: the total, with top-k in place of all experts."""
        return sympy.Add(*(lf.active_expr for lf in self.leaves() if lf.term.trainable))

    @property
    def has_active(self) -> bool:
        return any(t.active_times is not None for _, _, t in self.walk())

    def leaves(self) -> Iterator[Leaf]:
        if "leaves" not in self._memo:
            one = sympy.Integer(1)
            self._memo["leaves"] = tuple(self._leaves("", one, one, (), None))
        return iter(self._memo["leaves"])

    def _leaves(
        self, prefix: str, mult: sympy.Expr, active: sympy.Expr,
        patterns: tuple[re.Pattern[str], ...], kind: str | None,
    ) -> Iterator[Leaf]:
        kind = self.kind or kind
        path = f"{prefix}.{self.name}" if prefix else self.name
        mult = mult * self.times
        active = active * (self.times if self.active_times is None else self.active_times)
        if self._pattern is not None:
            patterns = (*patterns, self._pattern)
        if self.is_leaf:
            yield Leaf(path, self, mult, active, patterns, kind)
            return
        for child in self.children:
            yield from child._leaves(path, mult, active, patterns, kind)

    def walk(self, prefix: str = "") -> Iterator[tuple[str, int, Term]]:
        """Pre-order walk yielding (dotted path, depth, term); the root's path is its name."""
        yield from self._walk(prefix, 0)

    def _walk(self, prefix: str, depth: int) -> Iterator[tuple[str, int, Term]]:
        path = f"{prefix}.{self.name}" if prefix else self.name
        yield path, depth, self
        for child in self.children:
            yield from child._walk(path, depth + 1)

    def find(self, dotted: str) -> Term:
        """The sub-term at a dotted path relative to this term (``blocks.attention``)."""
        node = self
        for part in dotted.split(".") if dotted else []:
            for child in node.children:
                if child.name == part:
                    node = child
                    break
            else:
                raise KeyError(dotted)
        return node

    def free_symbols(self) -> set[sympy.Symbol]:
        syms: set[sympy.Symbol] = set(self.times.free_symbols)
        if self.active_times is not None:
            syms |= self.active_times.free_symbols
        if self.expr is not None:
            syms |= self.expr.free_symbols
        for c in self.children:
            syms |= c.free_symbols()
        return syms

    def replace(self, dotted: str, new: Term | None) -> Term:
        """A copy with the sub-term at ``dotted`` replaced (or removed when ``new`` is None).

        Used to derive variants and, in tests, deliberately broken formulas.
        """
        head, _, rest = dotted.partition(".")
        kids: list[Term] = []
        found = False
        for child in self.children:
            if child.name != head:
                kids.append(child)
                continue
            found = True
            if rest:
                kids.append(child.replace(rest, new))
            elif new is not None:
                kids.append(new)
        if not found:
            raise KeyError(dotted)
        return Term(self.name, None, tuple(kids), self.times, self.match, self.note,
                    self.trainable, self.active_times)

    # --- evaluation -----------------------------------------------------------------------------
    def evaluate(self, values: Mapping[sympy.Symbol, int]) -> int:
        return to_int(self.total(), values, self.name)

    def breakdown(self, values: Mapping[sympy.Symbol, int]) -> dict[str, int | dict]:
        """Nested name → count mapping (counts include every multiplicity above them)."""
        return numcore.nested(self.shape(), self.node_counts(values))

    def nodes(self) -> tuple[tuple[int, int, Term], ...]:
        """(parent index, -1 at the root; depth; term) per node, in :meth:`walk` order."""
        if "nodes" not in self._memo:
            out: list[tuple[int, int, Term]] = []

            def add(term: Term, parent: int, depth: int) -> None:
                out.append((parent, depth, term))
                at = len(out) - 1
                for child in term.children:
                    add(child, at, depth + 1)

            add(self, -1, 0)
            self._memo["nodes"] = tuple(out)
        return self._memo["nodes"]

    def shape(self) -> dict:
        """The nested names of :meth:`breakdown`, each leaf's value its index in :meth:`nodes`
        (by position: one Term object may sit at several places of a tree)."""
        groups: list[dict] = []
        for parent, _, term in self.nodes():
            groups.append({})
            if parent >= 0:
                groups[parent][term.name] = len(groups) - 1 if term.is_leaf else groups[-1]
        return groups[0]

    def node_counts(self, values: Mapping[sympy.Symbol, int]) -> list[int]:
        """Each node's count with every multiplicity above it (:func:`paramcount.core.numcore.node_counts`,
        from each node's multiplicity and per-instance count evaluated exactly)."""
        nodes = self.nodes()
        return numcore.node_counts([p for p, _, _ in nodes],
                                   [exact_value(t.times, values) for _, _, t in nodes],
                                   [exact_value(t.per_instance(), values) for _, _, t in nodes])

    # --- display --------------------------------------------------------------------------------
    def latex(self) -> str:
        return sympy.latex(self.total())

    def _repr_latex_(self) -> str:
        name = self.name.replace("_", r"\_")  # `final_norm` is a name, not a subscript
        return f"$\\displaystyle N_{{\\mathrm{{{name}}}}} = {self.latex()}$"

    def _latex(self, printer) -> str:  # sympy.latex(term) hook
        return self.latex()


_EXACT: dict[sympy.Expr, Callable | None] = {}


def _exact(expr: sympy.Expr) -> Callable | None:
    """The expression as plain Python over ints and Fractions, built once per expression."""
    if expr not in _EXACT:
        from paramcount.core.exact import function

        if len(_EXACT) > 200_000:
            _EXACT.clear()
        _EXACT[expr] = function(expr)
    return _EXACT[expr]


def exact_value(expr: sympy.Expr, values: Mapping[sympy.Symbol, int]):
    """An expression at integer values as an exact number (an int, or a Fraction where not whole)."""
    fn = _exact(expr) if isinstance(expr, sympy.Expr) else None
    if fn is not None:
        try:
            out = fn({s.name: v for s, v in values.items()})
        except (KeyError, ArithmeticError, TypeError, ValueError, AttributeError):
            out = None
        if numcore.exact(out) is not None:
            return numcore.exact(out)
    out = sympy.sympify(expr).xreplace({k: sympy.Integer(v) for k, v in values.items()})
    if numcore.exact(out) is None:
        raise ValueError(f"expression evaluates to {out}, not a number")
    return numcore.exact(out)


def to_int(expr: sympy.Expr, values: Mapping[sympy.Symbol, int], what: str = "") -> int:
    """Evaluate an expression at integer values, insisting on an exact integer result.

    Exact arithmetic either way: generated Python over ints and Fractions where it gives a
    whole number (SymPy's substitution cost more than everything else verify does), else SymPy,
    whose result (and error) is the reference."""
    fn = _exact(expr) if isinstance(expr, sympy.Expr) else None
    if fn is not None:
        try:
            out = fn({s.name: v for s, v in values.items()})
        except (KeyError, ArithmeticError, TypeError, ValueError, AttributeError):
            out = None
        if isinstance(out, int) and not isinstance(out, bool):
            return out
        if out is not None and getattr(out, "denominator", None) == 1:
            return int(out)
    return sympy_int(expr, values, what)


def sympy_int(expr: sympy.Expr, values: Mapping[sympy.Symbol, int], what: str = "") -> int:
    """:func:`to_int` by SymPy's substitution alone (the reference the tests hold it to)."""
    out = sympy.sympify(expr).xreplace({k: sympy.Integer(v) for k, v in values.items()})
    if out.free_symbols:
        missing = ", ".join(sorted(s.name for s in out.free_symbols))
        raise ValueError(f"{what or 'expression'}: no value for {missing}")
    if not out.is_Integer:
        raise ValueError(f"{what or 'expression'} evaluates to {out}, not an integer")
    return int(out)


# --- constructors -------------------------------------------------------------------------------
def leaf(name: str, expr, *, match: str | None = None, times=1, note: str = "",
         trainable: bool = True, part: tuple[int, ...] | None = None,
         kind: str | None = None, **cost) -> Term:
    """A leaf; keyword arguments named in COSTS (``macs=d_e·v``) say what it costs."""
    return Term(name, sympy.sympify(expr), (), sympy.sympify(times), match, note, trainable,
                part=part, kind=kind, cost=tuple(cost.items()))


def group(name: str, *children: Term | None, times=1, match: str | None = None,
          note: str = "", kind: str | None = None) -> Term:
    """A named group of terms; ``None`` children are dropped (for optional parts)."""
    kids = tuple(c for c in children if c is not None)
    return Term(name, None, kids, sympy.sympify(times), match, note, kind=kind)


def zero(name: str, note: str, *, kind: str | None = None, **cost) -> Term:
    """A part with no parameters, kept in the tree so the breakdown says why it costs nothing
    (in parameters: a head tied to the token table still multiplies, ``macs=d_e·v``)."""
    return Term(name, sympy.Integer(0), note=note, kind=kind, cost=tuple(cost.items()))
