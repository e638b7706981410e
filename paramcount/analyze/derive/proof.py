"""Proven, not fitted: a derived formula ≡ its transformers builds for all hyperparameters.

The derived tree becomes an architecture (:func:`paramcount.analyze.derive.tree.architecture`) whose
reference is the torch build, and ``prove``'s own machinery decides it: parametrized cases,
exact interpolation nodes for the layer counts, Schwartz–Zippel points for the rest, the bound
on a false proof below ``TARGET_ERROR``. Only the oracle differs: it reads torch weights
(:func:`reference_models.hf.torch_weights`) and never imports Keras, so a derivation's process
never holds TensorFlow beside torch.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import re
from collections.abc import Mapping

from paramcount.analyze.derive.core import Derivation
from paramcount.analyze.derive.probe import Source
from paramcount.analyze.derive.subcases import shared_periods, subcases
from paramcount.analyze.derive.tree import architecture
from paramcount.analyze.prove.case import UNCLAIMED, UnsupportedError
from paramcount.analyze.prove.oracle import Contested, Oracle
from paramcount.analyze.prove.results import ArchProof, CaseProof

__all__ = ["TorchOracle", "derived_architecture", "prove_derivation"]


class TorchOracle(Oracle):
    """torch − formula per component at a point: the architecture's reference returns the torch
    weights (as ``reference_models.hf.torch_weights`` reads them) of the build at ``hp``."""

    def _measure(self, point) -> dict[str, int]:
        from paramcount.analyze.verify import compare

        arch = self.case.arch
        hp = arch.resolve(self.case.hparams(point))
        self.builds += 1
        weights: list = arch.reference(hp)  # type: ignore[operator,assignment]
        self.counts[self._key(point)] = len(weights)
        if self.builds % 40 == 0:
            gc.collect()
        remember_claims(arch)
        res = compare(arch, hp, weights, framework="transformers")
        if res.contested:
            path, owners = res.contested[0]
            raise Contested(f"weight {path} is claimed by several components: "
                            + ", ".join(owners))
        out = {c.path: c.difference for c in res.components}
        out[UNCLAIMED] = sum(w.size for w in res.unclaimed)
        self.unclaimed_paths |= {re.sub(r"\d+", "#", w.path) for w in res.unclaimed}
        return out


def remember_claims(arch) -> None:
    """Each leaf of ``arch``'s formula remembers which weight paths it claims: a proof's builds
    name the same paths again and again (a few hundred a build, over hundreds of builds), and
    ``compare`` asks every leaf of every one, by regular expressions. A leaf's answer depends
    on the path alone (its patterns are fixed), so it is kept; the leaves are the formula's own
    (memoized), so this holds for the architecture's life."""
    for lf in arch.formula.leaves():
        if "claims" not in vars(lf):  # (frozen: set as the dataclass sets its own fields)
            object.__setattr__(lf, "claims", functools.lru_cache(maxsize=1 << 16)(lf.claims))


def derived_architecture(d: Derivation, src: Source):
    """The derived formula as an architecture whose reference builds ``src``'s model."""
    flags = set(d.flags)
    if d.equal and hasattr(src, "equal"):  # the fields that follow a hyperparameter follow it
        src.equal = tuple(d.equal.items())

    def reference(hp: Mapping[str, int]):
        over = {**d.explicit, **{k: (bool(v) if k in flags else v) for k, v in hp.items()
                                 if k in d.fields}}
        if hasattr(src, "weights"):  # a Keras builder's (paramcount.analyze.derive.keras_source)
            return src.weights(src.config(over))
        from reference_models.hf import torch_weights

        return torch_weights(src.model(src.config(over)))

    # what a proof's messages name as the builder (prove's Oracle.framework)
    reference.framework = ("Keras" if hasattr(src, "weights") else  # type: ignore[attr-defined]
                           "torch" if src.builder is not None else "transformers")
    return architecture(d, reference)


def prove_derivation(d: Derivation, src: Source) -> ArchProof:
    """Decide derived formula ≡ build, every option case (each value of each flag), within
    each sub-case derive writes itself (:mod:`paramcount.analyze.derive.subcases`)."""
    from paramcount.analyze.prove import cases, prove_case

    arch = derived_architecture(d, src)
    out: list[CaseProof] = []
    # what exists before the proof is kept through it: frozen out of the collector's scans, the
    # collections between builds (TorchOracle) look at the builds' leftovers only
    gc.collect()
    gc.freeze()
    try:
        for label, notes, sub in subcases(arch):
            try:
                all_cases = cases(sub)
            except UnsupportedError as exc:  # a floor it cannot split: two periods, if that is why
                why = ("split" in str(exc) and shared_periods(sub)) or str(exc)
                out.append(CaseProof(arch.id, label or "(all)", "error", (), (), {}, {}, {}, 0,
                                     0.0, 0, 0.0, message=why))
                continue
            for c in all_cases:
                p = prove_case(c, make_oracle=TorchOracle)
                out.append(dataclasses.replace(
                    p, case=", ".join(x for x in (label, p.case) if x and x != "(no options)")
                    or p.case, parametrization=(*notes, *p.parametrization)) if label else p)
    finally:
        gc.unfreeze()
    return ArchProof(arch.id, tuple(out))
