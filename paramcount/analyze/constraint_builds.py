"""Each declared constraint of an architecture with a transformers reference, checked against a
build of its class: a set that breaks that constraint alone (every other declared constraint
holds), found by changing one hyperparameter of an example set, built by transformers on the meta
device. The build is the fact: a constraint transformers imposes is refused with its validator's
or its build's message; one it does not impose is built and compared with the formula.

``breakers(arch)`` finds the sets (no torch needed); :func:`outcome` builds one (in a torch
worker: it imports :mod:`reference_models.hf`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping

from paramcount.core.errors import ParamcountError
from paramcount.core.hparams import Constraint

__all__ = ["Breaker", "breakers", "declared", "outcome"]

# the values tried for one hyperparameter, beside its example value (small and odd ones first)
_STEPS = (1, -1, 2, -2, 3, 4, 5, 6, 7)


@dataclasses.dataclass(frozen=True)
class Breaker:
    """``hparams`` (resolved) break ``constraint`` (its ``binds``: see :func:`declared`) alone."""

    arch_id: str
    binds: str
    constraint: Constraint
    hparams: Mapping[str, int]

    @property
    def label(self) -> str:
        return f"{self.arch_id}: {self.constraint.describe()} ({self.binds})"


def declared(arch) -> list[tuple[str, Constraint]]:
    """(binds, constraint) of every constraint declared on ``arch`` (binds "all"; its notes,
    "forward") and its transformers reference (its own class's: the variants are other classes;
    "transformers", and its limits, "limit")."""
    ref = arch.transformers
    out = [("all", c) for c in arch.constraints]
    out += [("forward", r.constraint) for r in arch.notes]
    out += [("transformers", c) for c in ref.constraints]
    out += [("limit", c) for c in ref.limits]
    return out


def _candidates(arch, given: Mapping[str, int], syms) -> Iterator[dict[str, int]]:
    free = {s.name for s in (*arch.required, *arch.optional)}
    for name in sorted(s.name for s in syms if s.name in free):
        base = given.get(name)
        if base is None:
            continue
        for step in _STEPS:
            if base + step >= 0:
                yield {**given, name: base + step}
        for mult in (2, 3):
            yield {**given, name: base * mult + 1}


def breakers(arch) -> dict[str, Breaker | None]:
    """For each declared constraint (by its :attr:`Breaker.label`), a set breaking it alone, or
    None when changing one hyperparameter of an example set finds none."""
    rows = declared(arch)
    out: dict[str, Breaker | None] = {}
    # the smallest sets first: their builds are the quickest
    sets = sorted((dict(arch.resolve(hs.hparams)) for hs in arch.hparam_sets()), key=arch.count)
    for binds, c in rows:
        others = [o for b, o in rows if o is not c]
        loose = dataclasses.replace(arch, constraints=tuple(o for o in arch.constraints if o is not c))
        found = None
        for hp in sets:
            given = {k: v for k, v in hp.items() if k not in {s.name for s in arch.fixed}}
            for cand in _candidates(arch, given, c.symbols()):
                try:
                    resolved = loose.resolve(cand)
                except (ParamcountError, ValueError, ZeroDivisionError):
                    continue
                values = arch.values(resolved)
                if c.check(values) and not any(o.check(values) for o in others):
                    found = Breaker(arch.id, binds, c, resolved)
                    break
            if found:
                break
        out[f"{arch.id}: {c.describe()} ({binds})"] = found
    return out


def outcome(arch_id: str, binds: str, hparams: Mapping[str, int], index: int) -> tuple[str, str]:
    """Build ``arch_id`` at ``hparams`` (breaking its ``index``-th declared constraint) with
    transformers: ("refused", transformers' message), ("exact", "") when it builds what the
    formula counts there, or ("differs", the mismatches)."""
    from paramcount.analyze.verify import compare
    from paramcount.core.errors import Refused
    from paramcount.model.frameworks import for_framework
    from paramcount.model.registry import get
    from reference_models.hf import weights

    arch = get(arch_id)
    _, c = declared(arch)[index]
    loose = dataclasses.replace(arch, constraints=tuple(o for o in arch.constraints if o is not c))
    try:
        built = weights(loose, dict(hparams))
    except Refused as exc:
        return "refused", str(exc)
    except Exception as exc:  # the build itself fails (a head width of 0: 0 ** -0.5)
        return "refused", f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    view = dataclasses.replace(for_framework(loose, "transformers", hparams), constraints=())
    try:
        r = compare(view, hparams, built, framework="transformers")
    except (ParamcountError, ValueError, ArithmeticError) as exc:  # the formula needs it
        return "differs", f"the formula cannot count it: {' '.join(str(exc).split())}"
    return ("exact", "") if r.ok else ("differs", str(r.mismatches())[:300])
