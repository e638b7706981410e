"""Proofs against transformers: formula + deltas ≡ the PyTorch model, for all hyperparameters.

The same method as against Keras (:mod:`paramcount.analyze.prove`), over the architecture as transformers
builds it (:func:`paramcount.model.frameworks.for_framework`: the tree with its declared deltas), with
a reference that returns transformers' weights: ``reference_models.hf.weights``, named, not
imported (:class:`paramcount.model.weights.Named`), so that the oracle builds it in a torch worker
(paramcount.runtime.isolate) and this module, like every process that proves, needs no torch.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from paramcount.model.frameworks import for_framework, hf_class
from paramcount.model.weights import Named

if TYPE_CHECKING:
    from paramcount.analyze.prove.results import ArchProof
    from paramcount.model.frameworks import Transformers
    from paramcount.model.registry import Architecture

__all__ = ["key", "proof_arch", "prove"]


def proof_arch(arch: Architecture, ref: Transformers | None = None) -> Architecture:
    """The architecture as transformers builds it (its class ``ref``, by default the first), with
    a reference that returns the transformers weights: ``paramcount.analyze.prove.prove(proof_arch(arch))``
    proves formula + deltas ≡ transformers for all hyperparameters, with prove's own oracle."""
    built = for_framework(arch, "transformers", ref=ref)
    # the declared class's and this class's (a variant's own validator: Gemma2Config's)
    within = tuple(dict.fromkeys((*getattr(arch.transformers, "prove_within", ()),
                                  *getattr(ref, "prove_within", ()))))
    # prove's own restriction first, so its equalities eliminate symbols before the divisibility
    # constraints are written as substitutions
    return dataclasses.replace(built, constraints=(*within, *built.constraints),
                               reference=Named("reference_models.hf:weights", (arch.id,)),
                               frameworks=("transformers",))


def prove(arch: Architecture) -> ArchProof:
    """formula + deltas ≡ transformers, for every transformers class of ``arch`` (each its own
    proof, over the options its class leaves free); several classes' cases are named by class."""
    from paramcount.analyze import prove as prover
    from paramcount.analyze.prove.results import ArchProof

    assert arch.transformers is not None
    refs = arch.transformers.all()
    proofs = [(r, prover.prove(proof_arch(arch, r))) for r in refs]
    if len(proofs) == 1:
        return proofs[0][1]

    def label(r, case: str) -> str:  # the class and the options it fixes (one class may serve two)
        fixed = ", ".join(f"{getattr(a.symbol, 'name', a.symbol)}={a.value}" for a in r.always)
        return f"{hf_class(arch, ref=r)}" + (f" ({fixed})" if fixed else "") + \
            ("" if case == "(no options)" else f": {case}")

    return ArchProof(arch.id, tuple(dataclasses.replace(c, case=label(r, c.case))
                                    for r, p in proofs for c in p.cases))


def key(arch: Architecture) -> str:
    """The key of ``arch``'s proofs against transformers: of each transformers class, joined
    (:func:`paramcount.runtime.cache.proof_key`; torch is not imported)."""
    from paramcount.runtime.cache import proof_key

    assert arch.transformers is not None
    return "+".join(proof_key(proof_arch(arch, r)) for r in arch.transformers.all())
