"""The reference side of a proof: reference − formula per component at a point, each point built
once.

Keras models are built the one allocation-free way (``reference_models._build.stateless``: a
stateless scope; task models built uncompiled by their builders), so a 2^24-wide layer costs no
memory. A torch-side reference (an architecture only transformers builds, or the view
:mod:`paramcount.analyze.prove.transformers` proves against) returns its weights from a torch worker
(paramcount.runtime.isolate), on the meta device."""

from __future__ import annotations

import gc
import re
from collections.abc import Mapping

import sympy

from paramcount.analyze.prove.case import UNCLAIMED, Case


class Contested(Exception):
    """A reference weight claimed by several formula components: the formula is ambiguous."""


class Oracle:
    """Reference − formula per component at a point of a case's parameter space: the reference's
    weights (Keras's, or a torch worker's) as plain :class:`~paramcount.model.weights.Weight` lists,
    whatever the framework."""

    def __init__(self, case: Case):
        self.case = case
        self.cache: dict[tuple, dict[str, int]] = {}
        self.unclaimed_paths: set[str] = set()
        self.builds = 0
        self.counts: dict[tuple, int] = {}  # number of distinct reference weights per point

    @property
    def framework(self) -> str:
        """What builds the reference, as messages name it: Keras, or transformers (a torch-side
        reference); a reference function may say it itself (``framework``: a derived one)."""
        said = getattr(self.case.arch.reference, "framework", None)
        return said or ("Keras" if "keras" in self.case.arch.checked_by else "transformers")

    def _key(self, point: Mapping[sympy.Symbol, int]) -> tuple[int, ...]:
        return tuple(int(point[x]) for x in self.case.free)

    def weight_count(self, point: Mapping[sympy.Symbol, int]) -> int:
        self(point)
        return self.counts[self._key(point)]

    def __call__(self, point: Mapping[sympy.Symbol, int]) -> dict[str, int]:
        key = self._key(point)
        if key not in self.cache:
            self.cache[key] = self._measure(point)
        return self.cache[key]

    def _measure(self, point) -> dict[str, int]:
        from paramcount.analyze.verify import compare

        arch = self.case.arch
        hp = arch.resolve(self.case.hparams(point))
        self.builds += 1
        if "keras" in arch.checked_by:
            weights = _keras_weights(arch, hp)
        else:  # a torch-side reference (transformers' build): in a torch worker
            from paramcount.runtime import isolate

            assert callable(arch.reference)  # a Named one: it pickles as its name
            weights = isolate.call("torch", arch.reference, hp)
        self.counts[self._key(point)] = len(weights)
        if self.builds % 40 == 0:
            gc.collect()
        res = compare(arch, hp, weights)
        if res.contested:
            path, owners = res.contested[0]
            raise Contested(f"{self.framework} weight {path} is claimed by several components: "
                            + ", ".join(owners))
        out = {c.path: c.difference for c in res.components}
        out[UNCLAIMED] = sum(w.size for w in res.unclaimed)
        self.unclaimed_paths |= {re.sub(r"\d+", "#", w.path) for w in res.unclaimed}
        return out


def _keras_weights(arch, hp) -> list:
    # TensorFlow first, with its C++ start-up notices muted, before anything imports Keras
    import reference_models

    reference_models.import_keras()
    from paramcount.analyze.builds import built_weights
    from reference_models._build import stateless

    # the scope also covers a plugin's builder that builds outside one
    return built_weights(arch, hp, scope=stateless)
