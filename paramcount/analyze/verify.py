"""The verifier: formula against the Keras reference model, weight by weight.

For an (architecture, hyperparameter set) it builds the reference model (without allocating its
weights), reads every weight's path and shape, assigns each weight to the formula leaf that claims
it (see :mod:`paramcount.core.formula`), and compares exact integers per component and in total,
trainable and non-trainable apart. A weight no leaf claims, or more than one leaf claims, is a
mismatch of its own. TensorFlow is imported here, on first use, and nowhere else.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from paramcount.analyze.builds import build_reference, keras_weights, memoised, reference_weights
from paramcount.core import errors
from paramcount.core.formula import FUSED
from paramcount.model import keras_hub_meta
from paramcount.model.registry import Architecture, Preset, get
from paramcount.model.weights import Weight

__all__ = [
    "ComponentResult",
    "ErrorRow",
    "Verification",
    "Weight",
    "build_reference",
    "keras_weights",
    "reference_weights",
    "verify",
]


@dataclass(frozen=True)
class ComponentResult:
    """One formula leaf against the Keras weights it claims."""

    path: str
    expected: int
    actual: int
    weights: tuple[str, ...]
    trainable: bool = True

    @property
    def difference(self) -> int:
        return self.actual - self.expected

    @property
    def ok(self) -> bool:
        return self.difference == 0


@dataclass(frozen=True)
class Verification:
    """The outcome of one verification; ``ok`` is the CI gate."""

    arch: str
    name: str
    hparams: dict[str, int]
    formula: int
    reference: int
    formula_nontrainable: int
    reference_nontrainable: int
    components: tuple[ComponentResult, ...]
    unclaimed: tuple[Weight, ...] = ()
    contested: tuple[tuple[str, tuple[str, ...]], ...] = ()
    keras_hub_preset: str | None = None
    keras_hub_params: int | None = None
    notes: tuple[str, ...] = field(default=())
    # Which framework built the reference (``reference*`` hold its counts): "keras", or
    # "transformers" (PyTorch's counts, against the tree with its declared deltas).
    framework: str = "keras"

    @property
    def reference_label(self) -> str:
        from paramcount.model.frameworks import label

        return label(self.framework)

    @property
    def keras(self) -> int:  # deprecated: README's pytest fixture returns a Verification
        warnings.warn("Verification.keras is now .reference", DeprecationWarning, stacklevel=2)
        return self.reference

    @property
    def keras_nontrainable(self) -> int:  # deprecated, as keras
        warnings.warn("Verification.keras_nontrainable: .reference_nontrainable", DeprecationWarning, stacklevel=2)
        return self.reference_nontrainable

    @property
    def difference(self) -> int:
        return self.reference - self.formula

    @property
    def ok(self) -> bool:
        return (self.difference == 0 and self.reference_nontrainable == self.formula_nontrainable
                and all(c.ok for c in self.components) and not self.unclaimed
                and not self.contested)

    @property
    def status(self) -> str:
        return "match" if self.ok else "MISMATCH"

    @property
    def metadata_status(self) -> str:
        """KerasHub's published figure against the Keras build ("" when there is none)."""
        if self.keras_hub_params is None:
            return ""
        return "agrees" if self.keras_hub_params == self.reference + self.reference_nontrainable else "differs"

    def mismatches(self) -> list[str]:
        """One line per problem, naming the component and the difference."""
        ref = self.reference_label
        out = [f"{c.path}: formula {c.expected:,}, {ref} {c.actual:,} ({c.difference:+,})"
               for c in self.components if not c.ok]
        out += [f"unclaimed {ref} weight {w.path} {list(w.shape)} ({w.size:,})"
                for w in self.unclaimed]
        out += [f"{ref} weight {p} claimed by several components: {', '.join(ls)}"
                for p, ls in self.contested]
        if self.reference_nontrainable != self.formula_nontrainable:
            out.append(f"non-trainable: formula {self.formula_nontrainable:,}, "
                       f"{ref} {self.reference_nontrainable:,}")
        return out

    def to_json(self) -> dict:
        return {
            "arch": self.arch,
            "preset": self.name,
            "hparams": dict(self.hparams),
            "formula": self.formula,
            "keras": self.reference,  # the published key, whatever the framework (see "framework")
            "difference": self.difference,
            "status": "match" if self.ok else "mismatch",
            "formula_nontrainable": self.formula_nontrainable,
            "keras_nontrainable": self.reference_nontrainable,
            "keras_hub_preset": self.keras_hub_preset,
            "keras_hub_params": self.keras_hub_params,
            "mismatches": self.mismatches(),
            "framework": self.framework,
        }

    def _repr_markdown_(self) -> str:
        from paramcount.output.render import verification_markdown

        return verification_markdown(self)


def compare(arch: Architecture, hparams: Mapping[str, int], weights: list[Weight], *,
            name: str = "custom", preset: Preset | None = None,
            framework: str = "keras") -> Verification:
    """Attribute weights to the formula's leaves and compare (no Keras needed: testable alone)."""
    values = arch.values(hparams)
    leaves = list(arch.formula.leaves())
    claimed: dict[str, list[Weight]] = {lf.path: [] for lf in leaves}
    unclaimed: list[Weight] = []
    contested: list[tuple[str, tuple[str, ...]]] = []
    matching = [lf for lf in leaves if lf.term.match]
    for w in weights:
        owners = [lf for lf in matching if lf.claims(w.path)]
        if not owners:
            unclaimed.append(w)
        elif len(owners) == 1 and owners[0].term.part is None:
            claimed[owners[0].path].append(w)
        elif all(lf.term.part == FUSED for lf in owners):
            for lf, piece in zip(owners, _shares(w, owners, values), strict=True):
                claimed[lf.path].append(piece)
        else:
            shares = _slices(w, owners)
            if shares is None:
                contested.append((w.path, tuple(lf.path for lf in owners)))
                continue
            for i, piece in enumerate(shares):
                owner = next((lf for lf in owners if (lf.term.part or (None,))[0] == i), None)
                (claimed[owner.path].append if owner else unclaimed.append)(piece)
    results = []
    for lf in leaves:
        ws = claimed[lf.path]
        expected = _int(lf.expr, values, lf.path)
        # A weight of the wrong trainability is not the component's: it shows as a difference.
        actual = sum(w.size for w in ws if w.trainable == lf.term.trainable)
        wrong = [w for w in ws if w.trainable != lf.term.trainable]
        unclaimed.extend(wrong)
        results.append(ComponentResult(lf.path, expected, actual, tuple(w.path for w in ws),
                                       lf.term.trainable))
    meta_preset = preset.keras_hub if (preset and arch.keras_hub_metadata) else None
    return Verification(
        arch=arch.id,
        name=name,
        hparams=dict(hparams),
        formula=_int(arch.formula.trainable_total(True), values, "total"),
        reference=sum(w.size for w in weights if w.trainable),
        formula_nontrainable=_int(arch.formula.trainable_total(False), values, "non-trainable"),
        reference_nontrainable=sum(w.size for w in weights if not w.trainable),
        components=tuple(results),
        unclaimed=tuple(unclaimed),
        contested=tuple(contested),
        keras_hub_preset=meta_preset,
        keras_hub_params=keras_hub_meta.published_params(meta_preset) if meta_preset else None,
        framework=framework,
    )


def _shares(w: Weight, owners: list, values) -> list[Weight]:
    """A fused weight of unequal pieces (q, k and v in one tensor) shared by its owners in tree
    order, in proportion to their formula counts (siblings: the same repeats apply to each);
    the last takes what is left. Only the sum is checked: a wrong total shows in it, split."""
    counts = [_int(lf.expr, values, lf.path) for lf in owners]
    total = sum(counts)
    sizes = [w.size * c // total if total else 0 for c in counts[:-1]]
    sizes.append(w.size - sum(sizes))
    return [Weight(f"{w.path}[{lf.term.name}]", n, w.trainable, (n,))
            for lf, n in zip(owners, sizes, strict=True)]


def _slices(w: Weight, owners: list) -> list[Weight] | None:
    """A weight cut into the equal slices its owners claim by ``part`` (one gate each); None
    when the owners do not partition it (whole and partial claims mixed, slice counts or axes
    that differ, a slice claimed twice, or an axis the count does not divide).

    ``part`` may name the axis; otherwise it is the output axis: the last of a Keras kernel or a
    GPT-2 Conv1D weight, the first of a PyTorch ``nn.Linear`` weight (out × in: BLOOM's and
    Falcon's fused query_key_value): the last axis when the count divides it, else the first."""
    parts = [lf.term.part for lf in owners]
    if any(p is None for p in parts):
        return None
    cuts = {(p[1], p[2] if len(p) == 3 else None) for p in parts}
    if len(cuts) != 1:
        return None
    ((k, axis),) = cuts
    if len({p[0] for p in parts}) != len(parts) or not w.shape:
        return None
    if axis is None:
        axis = -1 if w.shape[-1] % k == 0 else 0
    if not -len(w.shape) <= axis < len(w.shape) or w.shape[axis] % k:
        return None
    shape = list(w.shape)
    shape[axis] //= k
    return [Weight(f"{w.path}[{i}/{k}]", w.size // k, w.trainable, tuple(shape))
            for i in range(k)]


def _int(expr, values, what) -> int:
    from paramcount.core.formula import to_int

    return to_int(expr, values, what)


def verify(arch: Architecture | str, hparams: Mapping[str, int] | None = None, *,
           preset: str | Preset | None = None, name: str | None = None,
           framework: str = "keras") -> Verification:
    """Verify one architecture at one hyperparameter set (given directly or as a preset name).

    Example:
        >>> verify("gpt2", preset="gpt2_base_en").ok
        True
    """
    arch = get(arch) if isinstance(arch, str) else arch
    if isinstance(preset, str):
        preset = arch.preset(preset)
    name = name or (preset.name if preset is not None else "custom")
    resolved = _resolve(arch, arch.given(preset, hparams), framework)
    if framework == "keras" and "keras" not in arch.checked_by:
        from paramcount.core.errors import ParamcountError

        raise ParamcountError(f"{arch.id} is built by {' and '.join(arch.checked_by)} only, "
                              "not by Keras")
    if framework != "keras":
        return verify_transformers(arch, resolved, name=name)
    return compare(arch, resolved, reference_weights(arch, resolved), name=name, preset=preset)


def _resolve(arch: Architecture, given: Mapping[str, int], framework: str) -> dict[str, int]:
    """``given`` resolved as Keras resolves it, unless it states a symbol KerasHub fixes and
    transformers takes by a key of its own (``Transformers.settable``: Llama's head_dim): then in
    transformers' view, under the architecture's own constraints (transformers' refusals come
    from its build, as skipped rows)."""
    ref = getattr(arch, "transformers", None)
    freed = {s.name for r in ref.all() for s in r.settable} if ref and framework != "keras" else set()
    if not freed & set(given):
        return arch.resolve(given)
    why = ref.refusal(given) if ref is not None else None
    if why is not None:  # an option the class cannot switch: refused before the view pins it
        raise errors.Refused.here(arch.id, why)

    from paramcount.model.frameworks import for_framework

    view = for_framework(arch, framework)
    return replace(view, constraints=arch.constraints).resolve(given)


def verify_transformers(arch: Architecture, resolved: Mapping[str, int], *,
                        name: str = "custom") -> Verification:
    """The same attribution against the transformers model: PyTorch parameters by name onto the
    tree with its declared deltas (:func:`paramcount.model.frameworks.for_framework`)."""
    from paramcount.model.frameworks import broken_limit, for_framework

    hf_arch = for_framework(arch, "transformers", resolved)
    why = broken_limit(arch, resolved)
    if why is not None:  # transformers would build without complaint, but another model
        raise errors.Refused.here(arch.id, why)
    return compare(hf_arch, resolved, transformers_weights(arch, resolved), name=name,
                   framework="transformers")


def transformers_weights(arch: Architecture, hparams: Mapping[str, int]) -> list[Weight]:
    """The transformers model's weights at ``hparams``, built once per process, in a torch
    worker (paramcount.runtime.isolate: this process never imports torch unless it is one); a one-line
    error saying how to install the extra when it is missing."""
    from paramcount.model.weights import Named
    from paramcount.runtime import isolate

    def build() -> list[Weight]:
        require_transformers()
        return isolate.call("torch", Named("reference_models.hf:weights", (arch.id,)),
                            dict(hparams))

    return memoised(("transformers", arch.id, tuple(sorted(hparams.items()))), build)


def transformers_missing() -> str | None:
    """The module of the transformers extra that is not installed (torch, transformers), or
    None; found without importing either (this process may hold TensorFlow)."""
    from paramcount.runtime import extras

    absent = extras.missing("transformers")
    return absent[0] if absent else None


def require_transformers() -> None:
    """Nothing when torch and transformers are installed; else a ParamcountError saying how to
    install them."""
    from paramcount.core.errors import ParamcountError

    missing = transformers_missing()
    if missing is not None:
        raise ParamcountError(
            f"--framework transformers needs torch and transformers ({missing} is not "
            "installed): pip install 'paramcount[transformers]'")


class ErrorRow:
    """A verification that could not run: the reference builder raised (a plugin's builder, its
    missing module). Reported as a row of its own; ``verify`` carries on with the others."""

    ok = False
    status = "error"

    def __init__(self, arch: str, name: str, hparams, exc: BaseException) -> None:
        self.arch, self.name, self.hparams = arch, name, dict(hparams)
        self.error = f"{type(exc).__name__}: {exc}".strip().splitlines()[0][:300]

    def to_json(self) -> dict:
        return {"arch": self.arch, "preset": self.name, "hparams": self.hparams,
                "status": "error", "error": self.error}
