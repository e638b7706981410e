"""The second framework: where transformers' weights sit on the one formula tree, and the
declared deltas where transformers builds the same published model with other weights.

An architecture that transformers can build declares a :class:`Transformers`:

- ``weights``: component path (relative to the root, dotted: ``blocks.attention.query``) → a
  regular expression over whole segments of a PyTorch parameter name, written with ``/`` for
  ``.`` (``layers/\\d+``, ``self_attn/q_proj``). Groups may have one too; a parameter belongs to a
  leaf when its pattern and every ancestor's match, exactly as Keras weights do. An entry may be
  ``(pattern, (i, k))`` to claim the i-th of k last-axis slices of a fused weight (GPT-2's
  ``c_attn`` holds q, k and v); ``(pattern, (i, k, axis))`` slices another axis (Mixtral's
  ``gate_up_proj`` stacks gate and up along axis 1); ``(pattern, FUSED)`` shares a weight of
  unequal pieces among the leaves that claim it (Phi-3's ``qkv_proj``).
- ``deltas``: :class:`Delta` rows, each replacing (or adding) one term of the tree for
  transformers, with the reason: OPT's n + 2 position rows, a pooler one class lacks.
- ``always``: :class:`Always` rows, options the transformers class cannot switch (Gemma 3's QK
  norms are always there in Gemma3ForCausalLM): the reference refuses other values (the set shows
  as skipped) and, for transformers, the option is fixed (``count``, ``prove``).
- ``settable``: the reverse, symbols the formula fixes for KerasHub that transformers states by a
  key of its own (Moonshine's ``intermediate_size`` is any width, KerasHub's x_f·d_e): for
  transformers' view of the architecture they are settable, their fixed expression the default
  (``prove`` samples them freely).
- ``variants``: further transformers classes of the same architecture, each a
  :class:`Transformers` of its own with its own ``mapping`` table (class, ``model_type``, keys):
  Gemma 2's Gemma2ForCausalLM beside Gemma's GemmaForCausalLM, chosen by the post-norm flags. A
  hyperparameter set is built by the first (the architecture's own, then the variants in order)
  whose ``always`` it meets, as a config is read by the first table whose ``requires`` it meets.

:func:`tree` applies the deltas and re-points every term's ``match`` (and ``part``) at the
transformers names, so :func:`paramcount.analyze.verify.compare` attributes PyTorch parameters with the
same code that attributes Keras weights, and ``count --framework transformers`` evaluates the same
tree. Nothing here imports torch.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from paramcount.core import restrictions as restrict
from paramcount.core.formula import Term

if TYPE_CHECKING:
    from paramcount.model.mapping import Table

__all__ = [
    "FRAMEWORKS",
    "Always",
    "Delta",
    "Transformers",
    "cost_symbols",
    "cost_values",
    "for_framework",
    "has_component",
    "torch_path",
    "tree",
    "unformulated",
    "with_deltas",
]

FRAMEWORKS = ("keras", "transformers")
_LABEL = {"keras": "Keras", "transformers": "transformers"}


def label(framework: str) -> str:
    return _LABEL.get(framework, framework)


@dataclass(frozen=True)
class Delta:
    """A term transformers builds differently: ``term`` takes the place of the term at ``path``
    (or is added under ``path``'s parent when nothing is there; None removes it)."""

    path: str
    term: Term | None
    reason: str


@dataclass(frozen=True)
class Always:
    """An option the transformers class always has at ``value`` (no config key switches it)."""

    symbol: object  # sympy.Symbol
    value: int
    reason: str


# A field of a declaration that says what a forward costs, not which weights it builds: a
# parameter proof's key leaves it out (paramcount.runtime.cache.declared), a cost proof's keeps it.
COST = {"cost": True}


@dataclass(frozen=True)
class Transformers:
    """How transformers builds an architecture (see the module docstring)."""

    weights: Mapping[str, str | tuple[str, tuple]]
    deltas: tuple[Delta, ...] = ()
    # Constructor arguments beyond the config (``add_pooling_layer=False``).
    kwargs: Mapping[str, object] = field(default_factory=dict)
    # What transformers' config validation adds to the architecture's constraints (an even
    # rotary width): the sets that break them are refused there, and ``prove`` samples inside.
    constraints: tuple = field(default_factory=restrict.Derived)
    # What transformers builds regardless of the hyperparameters (BLOOM's MLP is 4·d_e wide,
    # whatever d_f says): no validation refuses such a set, transformers silently builds another
    # model, so verify skips the sets that break a limit (as it does those transformers refuses)
    # and ``prove`` samples inside, like ``constraints``.
    limits: tuple = field(default_factory=restrict.Derived)
    # Options the class cannot switch (see Always).
    always: tuple[Always, ...] = field(default_factory=restrict.Derived)
    # (weight path, transformers config) -> the path the patterns see, for layers whose kind
    # only the config tells (Gemma 4's global layers hold other weights under the same names as
    # its sliding-window layers: marked apart, as the Keras reference names them apart).
    rename: Callable[[str, Any], str] | None = None
    # Constraints ``prove`` alone adds (verify still builds every set): a sub-space it proves
    # where the whole one has more independent factors of one width than its random ranges can
    # carry (T5Gemma 2's d_e divisible by both sides' heads, each a multiple of its key/value
    # heads: five free factors in one width). The proof's case notes state them.
    prove_within: tuple = field(default_factory=restrict.Derived)
    # Fixed symbols transformers sets by a key of its own: symbol → why (see the module
    # docstring). The family's table must write that key from the symbol itself.
    settable: Mapping[object, str] = field(default_factory=dict)
    # Other classes for other hyperparameters (see the module docstring); only the architecture's
    # own Transformers has them.
    variants: tuple[Transformers, ...] = ()
    # A variant's table (paramcount.model.mapping.Table: its class, model_type and keys); None: the
    # architecture's own.
    mapping: Table | None = None
    # Another class of the family (paramcount.model.heads): where the family's declared class holds
    # the base model ("model"; "" at its root), so the reference names this class's base-model
    # weights as that class does and the family's patterns apply; None: the declared class.
    base: str | None = None
    # Why only transformers builds the architecture (a class or an option KerasHub has not:
    # paramcount.model.heads, paramcount.model.options), said where the Keras check is skipped.
    only: str | None = None
    # False: the class returns no cache (an encoder: its positions attend both ways, nothing is
    # kept for a next token), so the KV-cache tree is empty (paramcount.model.cost.without_cache).
    caches: bool = field(default=True, metadata=COST)
    # Positions each attention layer's cache keeps after T tokens where fewer than T: a sliding
    # window's (paramcount.model.cost.sliding_kept, w read from the config: ``cost_config``).
    kept: object = field(default=None, metadata=COST)
    # Memory and compute not formulated: quantity ("flops", "kv") → why (a forward transformers
    # cannot run on the meta device, a cost not written yet); paramcount.model.cost.unformulated.
    not_formulated: Mapping[str, str] = field(default_factory=dict, metadata=COST)
    # Where a router sends each token to k experts: True, the class can gather each token's
    # experts (transformers' ``batched_mm``: the products its loop over the routed experts
    # computes, in shapes known before the data), so the cost measurement runs on the meta device
    # and a cost proof is made as for any model; False, its experts run only in that loop
    # (DBRX's), which needs real data: a small real model on the CPU, checked, not proven.
    experts_on_meta: bool = field(default=True, metadata=COST)
    # Config fields that change no weight but the compute, set by the cost measurement
    # (reference_models.hf_costs.costs): key (dotted into a sub-config) → (symbol, default), the value
    # the hyperparameters give, else the config's default (``sliding_window``: (w, 4096)), or a
    # constant (what a forward needs). :func:`cost_values` fills in the defaults.
    cost_config: Mapping[str, object] = field(default_factory=dict, metadata=COST)
    # The family's restrictions (paramcount.core.restrictions): ``constraints``, ``limits``, ``always``
    # and ``prove_within`` derive from its rows binding transformers or the proof.
    restrictions: tuple[restrict.Restriction, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        self.__dict__.update(restrict.transformers(self, Always))  # frozen: set directly

    def _own_refusal(self, hp: Mapping[str, int]) -> str | None:
        for a in self.always:
            name = getattr(a.symbol, "name", str(a.symbol))
            if name in hp and hp[name] != a.value:
                return f"{name} = {hp[name]}: {a.reason}"
        return None

    def refusal(self, hp: Mapping[str, int]) -> str | None:
        """Why no class can build ``hp`` (an option it cannot switch), or None."""
        reasons = [self._own_refusal(hp)]
        for v in self.variants:
            reasons.append(v._own_refusal(hp))
        if any(r is None for r in reasons):
            return None
        return "; ".join(dict.fromkeys(r for r in reasons if r))

    def pick(self, hp: Mapping[str, int] | None) -> Transformers:
        """The variant that builds resolved hyperparameters ``hp``: the first whose ``always``
        they meet (itself when none does, or when ``hp`` is None)."""
        if hp is None:
            return self
        return next((t for t in (self, *self.variants) if t._own_refusal(hp) is None), self)

    def all(self) -> tuple[Transformers, ...]:
        """This class and its variants."""
        return (self, *self.variants)


def torch_path(name: str) -> str:
    """A PyTorch parameter name as a weight path: ``model.layers.0.q_proj.weight`` →
    ``model/layers/0/q_proj/weight`` (so the segment patterns of :mod:`paramcount.core.formula`
    apply unchanged)."""
    return name.replace(".", "/")


def with_deltas(root: Term, deltas: tuple[Delta, ...]) -> Term:
    for d in deltas:
        root = _put(root, d.path.split("."), d.term)
    return root


def _put(node: Term, parts: list[str], new: Term | None) -> Term:
    head, rest = parts[0], parts[1:]
    kids = list(node.children)
    idx = next((i for i, c in enumerate(kids) if c.name == head), None)
    if rest:
        if idx is None:
            raise KeyError(".".join(parts))
        kids[idx] = _put(kids[idx], rest, new)
    elif idx is None:
        if new is None:
            raise KeyError(head)
        kids.append(new)
    elif new is None:
        del kids[idx]
    else:
        # a replacement is the same component built differently: it keeps the kind of the term
        # it replaces unless it says its own (every leaf has a kind, on either framework)
        old = kids[idx]
        kids[idx] = new if new.kind is not None else dataclasses.replace(new, kind=old.kind)
    return dataclasses.replace(node, children=tuple(kids))


def _rematch(node: Term, prefix: str, weights: Mapping) -> Term:
    path = f"{prefix}.{node.name}" if prefix else node.name
    spec = weights.get(path)
    match, part = (spec if isinstance(spec, tuple) else (spec, None))
    kids = tuple(_rematch(c, path, weights) for c in node.children)
    return dataclasses.replace(node, children=kids, match=match,
                               part=part if node.is_leaf else None)


def tree(root: Term, ref: Transformers) -> Term:
    """The formula tree as transformers builds it: deltas applied, matches on PyTorch names."""
    applied = with_deltas(root, ref.deltas)
    unknown = [p for p in ref.weights if not has_component(applied, p)]
    if unknown:
        raise ValueError(f"{root.name}: transformers patterns for no component: {unknown}")
    out = dataclasses.replace(
        applied, children=tuple(_rematch(c, "", ref.weights) for c in applied.children),
        match=None)
    if not ref.caches or ref.kept is not None:
        from paramcount.model.cost import with_kept

        out = with_kept(out, ref.kept if ref.caches else 0)
    return out


def has_component(root: Term, path: str) -> bool:
    """Whether ``root`` has a component at the dotted ``path``."""
    try:
        root.find(path)
    except KeyError:
        return False
    return True


def for_framework(arch, framework: str, hparams: Mapping[str, int] | None = None,
                  ref: Transformers | None = None):
    """The architecture as ``framework`` builds it: itself for Keras; for transformers a copy
    whose tree carries the deltas and the PyTorch match patterns (ParamcountError when the
    architecture has no transformers reference). Where transformers has several classes
    (``Transformers.variants``), the one that builds the resolved ``hparams`` (or ``ref``, one of
    them); the first without either."""
    if framework == "keras":
        return arch
    from paramcount.core.errors import ParamcountError

    if framework != "transformers":
        raise ParamcountError(f"unknown framework {framework!r}; known: {', '.join(FRAMEWORKS)}")
    own = getattr(arch, "transformers", None)
    if own is None or arch.mapping is None or arch.mapping.hf_class(arch.id) is None:
        raise ParamcountError(f"{arch.id} has no transformers reference yet")
    ref = ref or own.pick(hparams)
    pinned = {a.symbol: a.value for a in ref.always}
    freed = {s: arch.fixed[s] for s in ref.settable}
    costs = {sym: _window(default) for sym, default in cost_symbols(ref).values()}  # w
    return dataclasses.replace(
        arch, formula=tree(arch.formula, ref),
        constraints=(*ref.constraints, *ref.limits, *arch.constraints),
        required=tuple(s for s in arch.required if s not in pinned),
        optional={**{s: e for s, e in arch.optional.items() if s not in pinned}, **freed, **costs},
        fixed={s: e for s, e in {**arch.fixed, **pinned}.items() if s not in freed},
        # what the class's forward needs beside the architecture's own (XLNet's even width)
        notes=(*arch.notes, *restrict.select(ref.restrictions, restrict.Holds, "forward")))


def hf_class(arch, hparams: Mapping[str, int] | None = None, ref: Transformers | None = None
             ) -> str | None:
    """The transformers class that builds ``arch`` at resolved ``hparams`` (or variant ``ref``)."""
    own = getattr(arch, "transformers", None)
    if own is None or arch.mapping is None:
        return None
    ref = ref or own.pick(hparams)
    return (ref.mapping or arch.mapping).hf_class(arch.id)


def broken_limit(arch, hparams) -> str | None:
    """Why transformers would build another model than ``hparams`` describe (a broken
    :attr:`Transformers.limits` condition), or None."""
    ref = getattr(arch, "transformers", None)
    if ref is None:
        return None
    ref = ref.pick(hparams)
    values = arch.values(hparams)
    return next((msg for c in ref.limits if (msg := c.check(values))), None)


def deltas(arch) -> tuple[Delta, ...]:
    """Every declared delta of ``arch``, of each of its transformers classes (once each)."""
    ref = getattr(arch, "transformers", None)
    if ref is None:
        return ()
    out: dict[int, Delta] = {}
    for t in ref.all():
        for d in t.deltas:
            out.setdefault(id(d), d)
    return tuple(out.values())


def _subtotal(root: Term, path: str, values) -> int:
    """Parameters of the term at ``path`` in the whole model (ancestors' ``times`` applied);
    0 when the tree has no such term."""
    from paramcount.core.formula import to_int

    node, mult = root, root.times
    for part in path.split("."):
        child = next((c for c in node.children if c.name == part), None)
        if child is None:
            return 0
        node, mult = child, mult * child.times
    return to_int(mult * node.per_instance(), values, path)


def delta_rows(arch, hparams) -> list[tuple[Delta, int, int]]:
    """Each declared delta of ``arch`` with its Keras and transformers counts at ``hparams``."""
    ref = getattr(arch, "transformers", None)
    if ref is None:
        return []
    ref = ref.pick(hparams)
    values = arch.values(hparams)
    hf_root = with_deltas(arch.formula, ref.deltas)
    return [(d, _subtotal(arch.formula, d.path, values), _subtotal(hf_root, d.path, values))
            for d in ref.deltas]


def own_weights(root: Term) -> dict[str, str | tuple[str, tuple]]:
    """A :class:`Transformers`' ``weights`` for a tree written in transformers' own names (a
    family only transformers builds: DeepSeek, Llama 4, Mamba): every term's path → its match."""
    out: dict[str, str | tuple[str, tuple]] = {}

    def walk(node: Term, prefix: str) -> None:
        for c in node.children:
            path = f"{prefix}.{c.name}" if prefix else c.name
            if c.match is not None:
                out[path] = (c.match, c.part) if c.part is not None else c.match
            walk(c, path)

    walk(root, "")
    return out


def unformulated(arch, quantity: str | None = None) -> dict[str, str]:
    """The quantities of ``arch`` (or the one ``quantity``) whose trees are not formulated, each
    with the reason: declared by the family (``Transformers.not_formulated``: a forward that
    cannot be measured, a cost not written yet), or leaves that say nothing of their compute. An
    architecture without a transformers reference has none formulated. Empty: both trees are
    whole (and ``tests/test_costs.py`` checks them against transformers)."""
    from paramcount.model.cost import QUANTITIES, forward_flops

    wanted = tuple(QUANTITIES) if quantity is None else (quantity,)
    ref = getattr(arch, "transformers", None)
    if ref is None or getattr(arch, "mapping", None) is None:
        return dict.fromkeys(wanted, "no transformers reference to measure it against")
    declared = dict(getattr(ref, "not_formulated", {}) or {})
    out = {q: declared[q] for q in wanted if q in declared}
    if "flops" in wanted and "flops" not in out:
        _, missing = forward_flops(for_framework(arch, "transformers").formula)
        if missing:
            out["flops"] = "compute not formulated for " + ", ".join(missing)
    return out


def cost_symbols(ref: Transformers) -> dict[str, tuple]:
    """A class's config fields that are cost symbols (``cost_config``'s (symbol, default)
    entries, not its constants): config key → (symbol, the class's default, None for none)."""
    return {key: spec for key, spec in (ref.cost_config or {}).items()
            if isinstance(spec, tuple) and len(spec) == 2 and hasattr(spec[0], "name")}


def cost_values(arch, hparams: Mapping[str, int] | None = None,
                config: Mapping[str, int | None] | None = None) -> dict[str, int]:
    """The cost symbols of ``arch`` that ``hparams`` lack, as ``config`` (a config file's fields,
    or a preset's) gives them, else at the defaults its transformers class takes (``w``: the
    config's sliding_window; a null window as NO_WINDOW): merged into the hyperparameters of a
    cost check (``{**hparams, **cost_values(arch, hparams)}``), as T and B are."""
    ref = getattr(arch, "transformers", None)
    if ref is None:
        return {}
    given = config or {}
    return {sym.name: _window(given.get(key, default))  # a null given: none
            for key, (sym, default) in cost_symbols(ref.pick(hparams)).items()
            if sym.name not in (hparams or {})}


def _window(default):
    """A cost symbol's default as a number: a class whose window defaults to none keeps every
    position (:data:`paramcount.model.cost.NO_WINDOW`)."""
    from paramcount.model.cost import NO_WINDOW

    return NO_WINDOW if default is None else default
