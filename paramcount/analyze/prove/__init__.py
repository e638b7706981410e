"""Proofs: a formula equals its Keras model as polynomials in every free hyperparameter.

A verification compares formula and Keras at one hyperparameter set. Both sides are polynomials
in the hyperparameters (once the constraints are written as substitutions), so agreement can be
*decided*, not sampled, under one stated assumption, per architecture and per *case* (each
combination of values of the architecture's 0/1 option flags), component by component (every
formula leaf against the Keras weights it claims, plus a pseudo-component for weights no leaf
claims). One module per step (proofs as text, JSON and the report's section are
:mod:`paramcount.output.proofs`'):

- :mod:`~paramcount.analyze.prove.parametrize` — each constraint writes itself as a substitution over
  fresh positive integer parameters (``d_e = M·d_e'``), so every point is a valid set;
- :mod:`~paramcount.analyze.prove.oracle` — Keras − formula per component at a point, built with no
  weight allocated;
- :mod:`~paramcount.analyze.prove.decide` — layer counts at exact interpolation nodes, the other
  parameters at Schwartz–Zippel random points, and the thresholds for calling a case proven;
- :mod:`~paramcount.analyze.prove.residual` — when a case is refuted, the exact residual polynomial;
- :mod:`~paramcount.analyze.prove.transformers` — the same proofs against transformers' build (formula +
  deltas), its weights read in a torch worker.

**Assumption.** The Keras count K_c(θ) of every component is a polynomial in θ whose degree in
each parameter x is at most δ_x = (the formula's degree in x) + MARGIN. This is what "proof"
rests on; nothing black-box can establish it. A case is *proven* only when the Schwartz–Zippel
bound on a false proof is below TARGET_ERROR and no exception went unexplained.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from paramcount.analyze.prove.case import MARGIN, UNCLAIMED, Case, UnsupportedError, structural_symbols
from paramcount.analyze.prove.decide import TARGET_ERROR, VALUE_BITS, classify, prove_case, ranges
from paramcount.analyze.prove.oracle import Oracle
from paramcount.analyze.prove.parametrize import case_flags, case_of, cases, parametrize
from paramcount.analyze.prove.residual import explain_case, interpolate_coefficients
from paramcount.analyze.prove.results import ArchProof, CaseProof, Residual

if TYPE_CHECKING:
    from paramcount.model.registry import Architecture

__all__ = [
    "MARGIN",
    "TARGET_ERROR",
    "UNCLAIMED",
    "ArchProof",
    "Case",
    "CaseProof",
    "Oracle",
    "Residual",
    "UnsupportedError",
    "cached_prove",
    "case_flags",
    "case_of",
    "cases",
    "classify",
    "explain",
    "explain_hparams",
    "interpolate_coefficients",
    "parametrize",
    "proofs_of",
    "prove",
    "prove_case",
    "prove_many",
    "structural_symbols",
]


def _arch(arch: Architecture | str) -> Architecture:
    from paramcount.model import registry

    return registry.get(arch) if isinstance(arch, str) else arch


def prove(arch: Architecture | str) -> ArchProof:
    """Prove (or refute) one architecture, every option case; an outcome whose inputs have not
    changed since it was proven is read from the on-disk cache (paramcount.runtime.cache.cached_proof)."""
    from paramcount.analyze.prove import stored
    from paramcount.runtime.cache import cached_proof

    return cached_proof(_arch(arch), _prove, stored.encode, stored.decode)


def _prove(arch: Architecture) -> ArchProof:
    try:
        all_cases = cases(arch)
    except UnsupportedError as exc:
        return ArchProof(arch.id, (CaseProof(arch.id, "(all)", "error", (), (), {}, {}, {}, 0,
                                             0.0, 0, 0.0, message=str(exc)),))
    return ArchProof(arch.id, tuple(prove_case(c) for c in all_cases))


def prove_many(ids: Iterable[str] | None = None, *, progress=None) -> list[ArchProof]:
    from paramcount.model import registry

    out = []
    for aid in sorted(registry.architectures()) if ids is None else list(ids):
        if progress:
            progress(aid)
        out.append(prove(aid))
    return out


_PROOF_CACHE: dict[str, tuple[Architecture, ArchProof]] = {}


def cached_prove(arch_id: str) -> ArchProof:
    """One proof per architecture and process (the report and tests share them)."""
    arch = _arch(arch_id)
    if arch_id not in _PROOF_CACHE or _PROOF_CACHE[arch_id][0] is not arch:
        _PROOF_CACHE[arch_id] = (arch, prove(arch))
    return _PROOF_CACHE[arch_id][1]


def explain(arch: Architecture | str, case: Case | None = None) -> tuple[Residual, ...]:
    """The exact residual Keras − formula per component, for one case (the first by default)."""
    arch = _arch(arch)
    case = case or cases(arch)[0]
    oracle = Oracle(case)
    case = classify(case, oracle)
    oracle.case = case
    return explain_case(case, oracle, ranges(case, VALUE_BITS[3]))  # values below 2^16


_EXPLAINED: dict[tuple[int, str], tuple[Architecture, tuple[Residual, ...]]] = {}


def explain_hparams(arch: Architecture | str, hparams: Mapping[str, int]) -> tuple[Residual, ...]:
    """The residuals of the case a hyperparameter set belongs to (used by ``verify``; one
    recovery per architecture and case in a process)."""
    arch = _arch(arch)
    case = case_of(arch, hparams)
    key = (id(arch), case.label)
    if key not in _EXPLAINED:
        _EXPLAINED[key] = (arch, explain(arch, case))
    return _EXPLAINED[key][1]


def proofs_of(results) -> list[ArchProof]:
    """The proof of every architecture among ``results`` (verifications), by id."""
    return [cached_prove(a) for a in sorted({r.arch for r in results})]
