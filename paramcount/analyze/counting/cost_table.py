"""The table of a compiled ``count --context`` (:mod:`paramcount.analyze.counting.compiled_costs`):
an architecture's cost trees (:func:`paramcount.analyze.costs.quantity_arch`: the KV cache and the
forward FLOPs) written as plain data by the functions that write the count's own table
(:func:`~paramcount.analyze.counting.table.tree_table`,
:func:`~paramcount.analyze.counting.table.hparam_table`), with what
:func:`paramcount.analyze.costs.evaluate` reads beside a tree: why a quantity is not formulated,
the proof record's outcome, the cost fields' defaults (a window) and each preset's. Only
generating imports SymPy (inside the functions).

A tree is the one transformers builds at the hyperparameters' class: where transformers has
several classes (``Transformers.variants``, picked by the options each class cannot switch), the
table holds one tree per class and the options that pick it."""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.analyze.counting.table import FORMAT, hparam_table, tree_table
from paramcount.core import exprdata

__all__ = ["always", "generate_costs", "picking"]


def picking(own, index: int) -> dict[str, int] | None:
    """Values of the options that make ``own.pick`` choose its ``index``-th class (``own``: an
    architecture's Transformers; 0 itself, then its variants), or None where none does."""
    refs = own.all()
    hp = dict(always(refs[index]))
    for earlier in refs[:index]:
        if all(hp.get(name, value) == value for name, value in always(earlier)):
            # it would take hp: one of its own options set otherwise
            free = [(n, v) for n, v in always(earlier) if n not in hp]
            if not free:
                return None
            name, value = free[0]
            hp[name] = 1 - value if value in (0, 1) else value + 1
    return hp if own.pick(hp) is refs[index] else None


def always(ref) -> list[tuple[str, int]]:
    """The options a transformers class cannot switch: (symbol name, its value)."""
    return [(getattr(a.symbol, "name", str(a.symbol)), a.value) for a in ref.always]


def _cost_fields(ref) -> list[list]:
    """``at``'s reading of a class's cost fields: [config key, symbol name, default]."""
    from paramcount.model.frameworks import cost_symbols

    return [[k, sym.name, default] for k, (sym, default) in cost_symbols(ref).items()]


class _Within:
    """The constraints of a proof's sub-space, as :func:`hparam_table` reads an architecture's."""

    def __init__(self, constraints) -> None:
        self.id, self.required, self.notes = "", (), ()
        self.optional: dict = {}
        self.fixed: dict = {}
        self.constraints = tuple(constraints)


def generate_costs(arch, record) -> dict:
    """``arch``'s compiled costs (an Architecture of the registry), the outcomes as the proof
    record at ``record`` (a path, or None: no record) says them."""
    from paramcount.analyze import costs
    from paramcount.analyze.cost_status import statuses as cost_statuses
    from paramcount.core.formula import pretty

    reasons = {q: costs.formulated(arch, q) for q in costs.QUANTITIES}
    statuses = {q: list(s) for q, s in cost_statuses(arch, record).items()}
    own = arch.transformers
    classes = []
    for i, ref in enumerate(own.all() if own is not None else ()):
        hp = picking(own, i)
        trees: dict | None = {} if hp is not None else None  # None: not found to be picked
        for q in costs.QUANTITIES:
            if reasons[q] is not None or trees is None:
                continue
            qa = costs.quantity_arch(arch, q, hp, proving=False)
            total = qa.formula.total()
            trees[q] = {**hparam_table(qa), **tree_table(qa.formula),
                        "formula": pretty(total)}
            if q == "kv":  # the named convention beside it (costs.evaluate's)
                trees[q]["per_head"] = exprdata.encode(costs.per_head_kv(arch, hp).total())
        classes.append({"index": i, "always": always(ref), "fields": _cost_fields(ref),
                        "trees": trees})
    return {"format": FORMAT, "kind": "costs", "id": arch.id, "quantities": list(costs.QUANTITIES),
            # the sub-space a proof draws its sets from: a set outside it, the full path says so
            "subspace": hparam_table(_Within(costs.proof_subspace(arch)))["constraints"],
            "reasons": reasons, "statuses": statuses, "no_window": costs.NO_WINDOW,
            "classes": classes, "configs": _configs(arch)}


def _configs(arch) -> dict[str, Mapping[str, int | None]]:
    """Each preset's (and example set's) cost fields, as ``count --preset`` reads them."""
    names = [*arch.presets_table(), *arch.examples]
    return {name: dict(arch.preset(name).config) for name in dict.fromkeys(names)}
