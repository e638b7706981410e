"""Fields a config rewrites after taking them: which value a derivation builds with.

A config may read a field back otherwise than it was given: BailingHybrid's config sets
``head_dim`` to ``qk_rope_head_dim`` after its linear attention read the ``head_dim`` given;
ERNIE 4.5's ``moe_layer_end_index`` is given ``-1``, "to the last layer", and read back as
``num_hidden_layers - 1``. Every probe and random build gives the fields explicitly, so the
value they give decides which model each of them builds (:func:`given_back`).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from paramcount.analyze.derive.layers import layer_counts

if TYPE_CHECKING:
    from paramcount.analyze.derive.core import Run
    from paramcount.analyze.derive.probe import Built, Source

__all__ = ["follows", "given_back"]


def given_back(run: Run, src: Source, cfg, base: Built, full: dict,
               explicit: dict) -> dict[str, str]:
    """Fields the config rewrites after taking them take the value given, as every probe and
    random build gives them: BailingHybrid's linear attention reads the head_dim given (128),
    then the config sets head_dim to qk_rope_head_dim (64), which given back would build
    another model. Where the values read back build the same model as the base, they stay
    (a constant the config puts in place of the value given), unless the config computes it
    from a layer count (:func:`follows`: ERNIE 4.5's moe_layer_end_index, given -1 and read
    back as num_hidden_layers - 1): read back, it would stay at the base's last layer as the
    layers vary, and bound them. Those take the value given, and are returned, each with
    why it is not varied (the config's own rule, as a field left None is)."""
    if isinstance(cfg, dict):
        return {}
    params = inspect.signature(type(cfg).__init__).parameters
    given = {k: p.default for k, p in params.items() if type(p.default) in (int, bool)
             or p.default is None}
    given.update({k: v for k, v in src.base.items() if k in params})
    odd = {f: given[f] for f in explicit
           if f in given and type(given[f]) is type(explicit[f]) and given[f] != explicit[f]}
    # and a field left None, which the config computes from the others (Dory's recurrent
    # layers, the ones its input and output layers leave): None given back, only where the
    # integers alone do not build the base (Dory reads its layer counts back doubled)
    nones = {f: None for f in explicit if f in given and given[f] is None
             and type(explicit[f]) is int}
    # the given values first: a build that splits a template by layer kind (below) would keep
    # it split in every later build, the given values' too, and no longer equal to the base
    if odd and run.try_build({**explicit, **odd}) == base:
        if run.try_build(explicit) != base:
            full.update(odd)
            explicit.update(odd)
            return {}
        ruled = {f: g for f in odd if (g := follows(src, explicit, f, odd[f]))}
        full.update({f: odd[f] for f in ruled})
        explicit.update({f: odd[f] for f in ruled})
        return {f: f"{odd[f]} given, which the config reads back as a function of {g} (its "
                   "own rule, as for a field left None): give it an integer to derive with it"
                for f, g in ruled.items()}
    try:  # a config that reads every value back as given rewrites none (no build needed)
        again = src.values(src.config(explicit))
    except Exception:
        again = {}
    if not nones or all(again.get(f) == v for f, v in explicit.items()):
        return {}
    back = {**odd, **nones}
    if run.try_build({**explicit, **back}) == base and run.try_build(explicit) != base:
        full.update(back)
        explicit.update(back)
    return {}


def follows(src: Source, explicit: Mapping[str, Any], f: str, value: Any) -> str:
    """The layer count of ``explicit`` (:func:`~paramcount.analyze.derive.layers.layer_counts`)
    whose change by one changes how the config reads ``f`` back when given ``value`` (ERNIE
    4.5's moe_layer_end_index, -1, read back as num_hidden_layers - 1); "" if none does. A
    width the config computes (an intermediate size from the hidden size) is no layer index,
    and stays a field of its own. Configs only, no build."""
    at = {**explicit, f: value}

    def read(over: Mapping[str, Any]) -> Any:
        try:
            return src.values(src.config(over)).get(f)
        except Exception:  # a config refusing the change: no reading of f there
            return None

    before = read(at)
    if before is None or before == value:
        return ""
    for g in layer_counts(explicit):
        if g != f:
            after = read({**at, g: explicit[g] + 1})
            if after is not None and after != before:
                return g
    return ""
