"""The report's sections about the second reference and what is not covered.

- *Keras and PyTorch side by side*: every declared convention delta (a term that exists, or is
  shaped otherwise, in transformers' build of the same published model) as a LaTeX term with its
  reason and the hyperparameter sets it changes, then the transformers count of each set: the
  formula with its deltas, which ``tests/test_transformers.py`` checks against transformers'
  own meta-device build for every preset and example set (``paramcount verify --framework
  transformers`` does the same on demand).
- *KerasHub presets not listed*: the presets of a covered family that paramcount does not verify,
  each with the reason (``keras_hub_meta.unlisted()``: each family folder's ``unlisted.py``).
"""

from __future__ import annotations

import importlib.metadata
from typing import TYPE_CHECKING

import sympy

from paramcount.model import frameworks, keras_hub_meta, registry

if TYPE_CHECKING:
    from paramcount.analyze.verify import Verification

__all__ = ["frameworks_section", "unlisted_section"]


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _version(dist: str) -> str:
    try:
        # the release, without a local wheel label (2.13.0+cpu): the same report on any machine
        return importlib.metadata.version(dist).split("+")[0]
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _delta_expr(arch, delta: frameworks.Delta) -> sympy.Expr:
    """transformers − Keras for one delta, symbolically (multiplicities included)."""
    ref = next(t for t in arch.transformers.all() if any(d is delta for d in t.deltas))
    hf_root = frameworks.tree(arch.formula, ref)

    def sub(root) -> sympy.Expr:
        path = f"{root.name}.{delta.path}"
        return sympy.Add(*(lf.expr for lf in root.leaves()
                           if lf.path == path or lf.path.startswith(path + ".")))

    return sympy.factor(sympy.expand(sub(hf_root) - sub(arch.formula)))


def _refusal(arch, hp) -> str | None:
    """Why transformers does not build ``hp`` (a declared constraint, limit or fixed option)."""
    assert arch.transformers is not None
    ref = arch.transformers.pick(hp)
    values = arch.values(hp)
    for c in (*ref.constraints, *ref.limits):
        msg = c.check(values)
        if msg:
            return msg
    return ref.refusal(hp)


def frameworks_section(results: list[Verification]) -> str:
    ids = sorted({r.arch for r in results if registry.get(r.arch).transformers is not None})
    lines = ["## Keras and PyTorch side by side", "",
             f"transformers {_version('transformers')}, torch {_version('torch')}. "
             f"{len(ids)} architectures have a transformers reference: a PyTorch model built from "
             "a transformers config on the meta device, its parameters attributed by name to the "
             "same formula leaves the Keras weights go to. Where the two frameworks build the "
             "same published model with different weights, the formula carries the difference as "
             "a named delta, with its reason:", "",
             "| architecture | transformers class | component | transformers − Keras | reason "
             "| sets it changes |", "|---|---|---|---|---|---|"]
    by_arch: dict[str, list[Verification]] = {}
    for r in results:
        by_arch.setdefault(r.arch, []).append(r)
    for aid in ids:
        arch = registry.get(aid)
        assert arch.transformers is not None  # ids holds the architectures that have one
        for ref in arch.transformers.all():  # each transformers class (Gemma, Gemma 2)
            cls = frameworks.hf_class(arch, ref=ref)
            for d in ref.deltas:
                changed = [r.name for r in by_arch[aid] if any(
                    dd is d and k != h for dd, k, h in frameworks.delta_rows(arch, r.hparams))]
                lines.append(f"| {aid} | `{cls}` | `{d.path}` | "
                             f"${sympy.latex(_delta_expr(arch, d))}$ | {_md(d.reason)} | "
                             f"{', '.join(changed) or 'none'} |")
    lines += ["", "Each hyperparameter set as transformers builds it (formula + deltas; checked "
              "against transformers' own build by the test run):", "",
              "| architecture | set | Keras | transformers | difference |", "|---|---|---:|---:|---:|"]
    for aid in ids:
        arch = registry.get(aid)
        for r in by_arch[aid]:
            why = _refusal(arch, r.hparams)
            if why:
                lines.append(f"| {aid} | {r.name} | {r.formula:,} | not built: {_md(why)} | |")
                continue
            hf = frameworks.for_framework(arch, "transformers", r.hparams).formula.evaluate(
                arch.values(r.hparams))
            keras = r.formula if "keras" in arch.checked_by else None
            lines.append(f"| {aid} | {r.name} | {'—' if keras is None else f'{keras:,}'} "
                         f"| {hf:,} | {'' if keras is None else f'{hf - keras:+,}'} |")
    return "\n".join(lines)


def unlisted_section(results: list[Verification]) -> str:
    lines = ["## KerasHub presets not listed", "",
             "KerasHub presets of the families covered here that paramcount does not verify, and "
             "why (`UNLISTED` in `paramcount/families/<family>/unlisted.py`; a test fails when a KerasHub "
             "preset of a covered family is neither listed nor named here):", ""]
    lines += [f"- `{name}`: {_md(reason)}" for name, reason in sorted(keras_hub_meta.unlisted().items())]
    return "\n".join(lines)
