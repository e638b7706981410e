"""Each way checks the other: for a hand-written architecture with a transformers reference, the
formula derived from the transformers class's builds ≡ the hand-written formula + its
transformers deltas, for all hyperparameters, after the family's config table renames the
symbols (issue 19 §5).

The derivation is made at the config the table writes for the architecture's first
hyperparameter set the class builds (every mapped key explicit). Then, for every option case of
the hand-written side (:func:`paramcount.analyze.prove.transformers.proof_arch`, parametrized by
``prove``):

1. **SymPy.** Each derived field is renamed through the table (``hidden_size`` ↦ d_e,
   ``intermediate_size`` ↦ 2·d_f, a constant the table always writes ↦ its value), the case's
   substitutions are applied to both sides, and their difference is expanded: 0 is *equal*.
2. **The prove machinery**, where a field is no such renaming (a width the config class computes
   from others) or floors stay: the difference of the two formulas is decided exactly as
   ``prove`` decides formula ≡ build (interpolation nodes, Schwartz–Zippel points, the bound on a
   false proof below 1e-9), the derived side evaluated at the values the config class gives the
   fields. No model is built.

Where that fails, the sub-space both ways express: the symbols whose config key the derivation
never varies (nested config, list, fields a validator ties) held at the set's values, named in
the result (:attr:`Agreement.held`). Counted on both sides: trainable parameters, and apart
from them frozen parameters and persistent buffers (the hand-written non-trainable leaves).
Runs where transformers is importable (a torch worker); imports no TensorFlow.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field

import sympy

from paramcount.analyze.derive.core import Derivation
from paramcount.analyze.derive.probe import Source
from paramcount.analyze.prove.case import UNCLAIMED, Case
from paramcount.analyze.prove.oracle import Oracle

__all__ = ["Agreement", "check", "crosscheck", "derivation_for", "renaming"]


@dataclass
class Agreement:
    """derived ≡ hand-written + deltas for one architecture and transformers class."""

    arch: str
    cls: str
    cases: list[tuple[str, str, str]] = field(default_factory=list)  # (case, how, message)
    # hand-written symbols held at the derivation config's value, each with why: the sub-space
    # both ways express (a key the derivation does not vary: nested, a list); empty: all of it
    held: dict[str, tuple[int, str]] = field(default_factory=dict)

    @property
    def agrees(self) -> bool:
        return bool(self.cases) and all(how in ("sympy", "proven") for _, how, _ in self.cases)

    def line(self) -> str:
        how = sorted({h for _, h, _ in self.cases})
        bad = [f"{c}: {h}: {m}" for c, h, m in self.cases if h not in ("sympy", "proven")]
        within = ", ".join(f"{s}={v} ({why})" for s, (v, why) in sorted(self.held.items()))
        return (f"{self.arch} ({self.cls}): " + ("agree" if self.agrees else "DISAGREE")
                + (f" within {within}" if within else "")
                + f" [{', '.join(how)}; {len(self.cases)} cases]"
                + (f" {bad[0]}" if bad else ""))


def _table(arch, ref):
    return ref.mapping or arch.mapping


def _first_set(arch, ref) -> dict[str, int]:
    """The resolved hyperparameters of the first set of ``arch`` that ``ref``'s class builds."""
    for hs in arch.hparam_sets():
        hp = arch.resolve(hs.hparams)
        if ref._own_refusal(hp) is None:
            return hp
    raise ValueError(f"{arch.id}: no hyperparameter set its class {ref} builds")


def derivation_for(arch, ref=None, *, use_cache: bool = True) -> tuple[Source, Derivation]:
    """The derivation of the transformers class that builds ``arch`` (its variant ``ref``), at
    the config the family's table writes for its first set; the class's constructor arguments
    (``add_pooling_layer=False``) as the reference passes them."""
    from paramcount.analyze.derive import store
    from paramcount.analyze.derive.core import derive
    from paramcount.model.frameworks import hf_class

    ref = ref or arch.transformers
    table = _table(arch, ref)
    hp = _first_set(arch, ref)
    src = Source(model_type=table.model_type, config=table.hf_config(hp),
                 cls=hf_class(arch, ref=ref), cls_kwargs=ref.kwargs)
    if not use_cache:
        return src, derive(src)
    d, _ = store.cached(src.model_type, src.cls_name, src.base, lambda: derive(src))
    return src, d


def renaming(d: Derivation, table) -> dict[str, sympy.Expr] | None:
    """Each derived field as an expression in the hand-written symbols, as the table writes it:
    a plain key (scale·symbol + offset; a flag as its 0/1 symbol) or a constant the table always
    writes. None when some field is neither (the prove machinery decides then)."""
    from paramcount.core import symbols

    out: dict[str, sympy.Expr] = {}
    rows = {f.hf: f for f in table.fields if f.hf}
    for name in d.fields:
        row = rows.get(name)
        if row is not None and not (row.hf_values or row.kinds or row.listed or row.hf_per
                                    or row.hf_presence or row.stack is not None):
            sym = symbols.get(row.symbol)
            out[name] = sym if row.flag else row.hf_scale * sym + row.hf_offset
            continue
        const = table.hf_constants.get(name)
        if const is not None and not callable(const) and isinstance(const, (bool, int)):
            out[name] = sympy.Integer(int(const))
            continue
        return None
    return out


def _derived_exprs(d: Derivation, names: Mapping[str, sympy.Expr]) -> dict[str, sympy.Expr]:
    from paramcount.analyze.derive.tree import expr

    out = {"trainable": sympy.Integer(0), "apart": sympy.Integer(0)}
    for t in d.templates:
        part = "trainable" if t.role == "trainable" else "apart"
        out[part] += expr(t.mult, dict(names)) * sympy.Mul(*(expr(x, dict(names))
                                                            for x in t.dims))
    return out


class _Oracle(Oracle):
    """derived − hand-written at a point: no build, the derived formula evaluated at the field
    values the config class gives for the point's hyperparameters."""

    def __init__(self, case: Case, d: Derivation, src: Source, table):
        super().__init__(case)
        self.d, self.src, self.table = d, src, table

    def _fields(self, hp) -> dict[str, int]:
        # the config the reference builds (reference_models.hf.config): the table's keys alone
        values = self.src.values(self.src.config(self.table.hf_config(hp)))
        return {f: int(values[f]) for f in self.d.fields}

    def _measure(self, point) -> dict[str, int]:
        from paramcount.analyze.derive.fit import evaluate
        from paramcount.core.formula import to_int

        arch = self.case.arch
        hp = arch.resolve(self.case.hparams(point))
        self.builds += 1
        values = self._fields(hp)
        counts = self.d.count(values)
        self.counts[self._key(point)] = sum(evaluate(t.mult, values) for t in self.d.templates)
        subs = arch.values(hp)
        hand = to_int(arch.formula.trainable_total(), subs)
        apart = to_int(arch.formula.trainable_total(False), subs)
        return {"trainable": counts["trainable"] - hand,
                "apart": counts["frozen"] + counts["buffer"] - apart, UNCLAIMED: 0}


def _sympy_equal(case: Case, derived: dict[str, sympy.Expr], arch) -> bool:
    """Whether derived − hand-written expands to 0 in the case's parameters."""
    given = {**dict(case.given), **{_sym(k): sympy.Integer(v) for k, v in case.flags}}
    for part, hand in (("trainable", arch.formula.trainable_total()),
                       ("apart", arch.formula.trainable_total(False))):
        diff = derived[part] - hand
        for _ in range(4):  # fixed symbols in terms of others, then the case's substitutions
            diff = diff.xreplace({s: e for s, e in arch.fixed.items()})
        diff = sympy.expand(sympy.simplify(diff.xreplace(given)))
        if diff != 0:
            return False
    return True


def _sym(name: str) -> sympy.Symbol:
    from paramcount.core import symbols

    return symbols.get(name)


def crosscheck(arch, *, use_cache: bool = True) -> list[Agreement]:
    """derived ≡ hand-written + deltas, for each transformers class of ``arch``."""
    out = []
    for ref in arch.transformers.all():
        try:
            src, d = derivation_for(arch, ref, use_cache=use_cache)
        except Exception as exc:  # a derivation that cannot be made: named, not agreed
            out.append(Agreement(arch.id, str(_table(arch, ref).hf_class(arch.id)),
                                 [("(derive)", "error", f"{type(exc).__name__}: {exc}")]))
            continue
        out.append(check(arch, ref, src, d))
    return out


def check(arch, ref, src: Source, d: Derivation) -> Agreement:
    """derived ``d`` ≡ ``arch`` + the deltas of its class ``ref``, every option case."""
    from paramcount.analyze.prove.transformers import proof_arch

    shown = proof_arch(arch, ref)
    table = _table(arch, ref)
    ag = Agreement(arch.id, d.cls)
    if d.failures:
        ag.cases.append(("(derive)", "error", "; ".join(f"{w}: {r}" for w, r in d.failures)))
        return ag
    _decide_all(ag, shown, ref, src, d, table)
    if not ag.agrees and not any(how == "error" for _, how, _ in ag.cases):
        hp = _first_set(arch, ref)
        held = _held(d, table, src, hp)
        if held:  # the sub-space both ways express: those symbols as the table writes them
            within = Agreement(arch.id, d.cls, held=held)
            _decide_all(within, _restricted(shown, held, hp), ref, src, d, table)
            if within.agrees:
                return within
    return ag


def _held(d: Derivation, table, src: Source, hp: Mapping[str, int]) -> dict[str, tuple[int, str]]:
    """The hand-written symbols whose config key the derivation never varied (so its formula
    holds them at the derivation config's value): a key inside a nested config, a per-block list,
    a key no single variation of which the config class accepts."""
    out: dict[str, tuple[int, str]] = {}
    seen = set(d.fields) | set(d.inert)
    for row in table.fields:
        lists = [k for k in getattr(row, "options", {}).values()
                 if isinstance(src.base.get(k), (list, tuple))]
        if row.stack is not None and lists and row.symbol in hp:  # Qwen MoE's mlp_only_layers
            why = f"{', '.join(lists)}: a per-block list, not varied (the layer counts held)"
            for sym in (row.symbol, row.per_block):
                out.setdefault(sym, (int(hp[sym]), why))
            continue
        # a key the config written holds (not an alias it folds into another: Qwen3-MoE's
        # num_experts) that the derivation never varied; one symbol's other key varied does
        # not express it (PaliGemma's projection_dim beside text_config.hidden_size)
        if not row.hf or row.symbol not in hp or row.hf in seen or row.hf_presence \
                or _lookup(src.base, row.hf) is None:
            continue
        top = row.hf.split(".")[0]
        if isinstance(src.base.get(top), (list, tuple)):  # ViT's image_size.0
            why = f"{row.hf}: an entry of a list, not varied"
        elif "." in row.hf:
            why = f"{row.hf}: a nested config's key, not varied"
        elif row.kinds or row.listed or row.stack is not None:
            why = f"{row.hf}: a per-block list, not varied"
        elif top in d.unvaried:
            why = f"{row.hf}: not varied ({(d.unvaried[top] or 'refused')[:80]})"
        else:
            continue
        out[row.symbol] = (int(hp[row.symbol]), why)
    for key, make in table.hf_constants.items():  # a list the table writes from symbols
        if callable(make) and isinstance(src.base.get(key), (list, tuple)):
            why = f"{key}: a per-block list written from them, not varied"
            for sym in _read_by(make, hp):
                out.setdefault(sym, (int(hp[sym]), why))
    return out


def _lookup(config: Mapping, key: str):
    """The value at a dotted key (``text_config.hidden_size``, ``image_size.0``), else None."""
    at: object = config
    for part in key.split("."):
        if isinstance(at, Mapping):
            at = at.get(part)
        elif isinstance(at, (list, tuple)) and part.isdigit() and int(part) < len(at):
            at = at[int(part)]
        else:
            return None
    return at


def _read_by(make, hp: Mapping[str, int]) -> list[str]:
    """The symbols ``make`` (a table's constant written from the hyperparameters) reads: those
    whose change by one, either way, changes what it writes (or makes it refuse)."""
    at = make(hp)
    out = []
    for k, v in hp.items():
        for w in (v + 1, v - 1):
            try:
                changed = make({**hp, k: w}) != at
            except Exception:
                changed = True
            if changed:
                out.append(k)
                break
    return out


def _restricted(shown, held: dict[str, tuple[int, str]], hp: Mapping[str, int]):
    """``shown`` with the held symbols fixed at their values (no longer hyperparameters), its
    constraints written at them; a symbol a constraint then bounds by a constant (top-k ≤ E with
    E held) is held too, at its own value, and added to ``held``."""
    import dataclasses

    from paramcount.core.hparams import Divisible, Relation

    settable = {s.name for s in shown.settable}
    while True:
        syms = {_sym(k): sympy.Integer(v) for k, (v, _) in held.items()}
        kept, more = [], {}
        for c in shown.constraints:
            if not c.symbols() & set(syms):
                kept.append(c)
                continue
            if isinstance(c, Divisible):
                c = Divisible(sympy.sympify(c.dividend).xreplace(syms),
                              sympy.sympify(c.divisor).xreplace(syms))
                sides: tuple = (c.dividend,) if not c.divisor.free_symbols \
                    else (c.dividend, c.divisor)
            elif isinstance(c, Relation):
                c = dataclasses.replace(
                    c, lhs=sympy.sympify(c.lhs).xreplace(syms),
                    rhs=sympy.sympify(c.rhs).xreplace(syms),
                    when=None if c.when is None else sympy.sympify(c.when).xreplace(syms))
                sides = (c.lhs, c.rhs)
            else:
                sides = ()
            if not c.symbols():
                continue  # met at the derivation config's set, which resolved
            if all(sympy.sympify(x).free_symbols for x in sides):
                kept.append(c)
                continue
            for x in c.symbols():  # bounded by a constant: the prover cannot parametrize it
                if x.name in settable and x.name not in held:
                    more[x.name] = f"bounded by the held {', '.join(sorted(held))}"
        if not more:
            break
        for name, why in more.items():
            held[name] = (int(hp[name]), why)
    return dataclasses.replace(
        shown, required=tuple(s for s in shown.required if s not in syms),
        optional={k: e for k, e in shown.optional.items() if k not in syms},
        fixed={**shown.fixed, **syms}, constraints=tuple(kept))


def _decide_all(ag: Agreement, shown, ref, src: Source, d: Derivation, table) -> None:
    from paramcount.analyze.prove import cases

    names = renaming(d, table)
    derived = _derived_exprs(d, names) if names is not None else None
    for case in cases(shown):
        d_case, src_case = _for_case(shown, ref, case, src, d)
        if d_case is not d:  # a field None in this case (DeepSeek's q_lora_rank): its own
            ag.cases.append(_decide(case, d_case, src_case, table, shown))
            continue
        if derived is not None:
            try:
                if _sympy_equal(case, derived, shown):
                    ag.cases.append((case.label, "sympy", ""))
                    continue
            except (TypeError, ValueError):
                pass
        ag.cases.append(_decide(case, d, src, table, shown, sympy_done=True))


def _decide(case, d, src, table, shown, sympy_done: bool = False) -> tuple[str, str, str]:
    from paramcount.analyze.prove import prove_case

    if d.failures:
        return (case.label, "error", "; ".join(f"{w}: {r}" for w, r in d.failures))
    names = None if sympy_done else renaming(d, table)
    if names is not None:
        try:
            if _sympy_equal(case, _derived_exprs(d, names), shown):
                return (case.label, "sympy", "")
        except (TypeError, ValueError):
            pass
    res = prove_case(case, explain_residuals=False,
                     make_oracle=lambda c: _Oracle(c, d, src, table))
    return (case.label, res.status, res.message)


def _for_case(shown, ref, case, src: Source, d: Derivation):
    """The derivation that holds in ``case``: ``d``, unless the case's config sets one of its
    fields to None (a structure switched off by a null key) or gives another name to a key that
    holds one (T5's feed_forward_proj); then one derived at the config of the derivation's set
    with the case's flags, else of the case's first hyperparameter set."""
    from paramcount.analyze.derive import store
    from paramcount.analyze.derive.core import derive
    table = _table(shown, ref)
    flags = dict(case.flags)
    sets = []
    for hs in shown.hparam_sets():
        try:
            sets.append(hs.hparams)
        except Exception:
            continue
    try:  # first the derivation's own set with the case's flags: its lists stay as derived
        settable = set(shown.settable)
        own = [{**{k: v for k, v in _first_set(shown, ref).items() if _sym(k) in settable},
                **flags}]
    except ValueError:
        own = []
    for raw in [*own, *sets, *({**h, **flags} for h in sets[:1])]:
        try:
            hp = shown.resolve(raw)
        except Exception:
            continue
        if any(hp.get(k) != v for k, v in flags.items()) or ref._own_refusal(hp) is not None:
            continue
        config = table.hf_config(hp)
        values = src.values(src.config(config))
        # a key no variation reaches (a name: T5's feed_forward_proj) as at the derivation's
        same = all(v == src.base.get(k) for k, v in config.items() if type(v) not in (int, bool))
        if same and all(values.get(f) is not None for f in d.fields):
            return d, src
        new = Source(model_type=src.model_type, config=config, cls=src.cls_name.split("(")[0],
                     cls_kwargs=src.cls_kwargs)
        made = store.cached(new.model_type, new.cls_name, new.base, functools.partial(derive, new))
        return made[0], new
    return d, src
