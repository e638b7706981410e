"""Assert, in a user's own tests, that a Keras model has the parameters the formula says.

    from paramcount.testing import assert_param_count

    def test_my_gpt2():
        model = build_my_model()          # any Keras model: a KerasHub backbone, a task model...
        assert_param_count(model, "gpt2", v=50257, n=1024, d_e=768, M=12, d_f=3072, L=12)
        assert_param_count(model, "gpt2", preset="gpt2_base_en")   # the same, by preset name

The model's weights are attributed to the formula's components exactly as ``paramcount verify``
attributes the reference model's (by weight path, :func:`paramcount.analyze.verify.compare`), so a failure
names each component whose count differs, and each weight no component claims::

    AssertionError: my model does not have the parameters of gpt2 (v=100, n=16, ..., L=2):
    formula 78,208, model 72,000 (-6,208)
      - blocks.ffn.up: formula 16,640, Keras 12,480 (-4,160)
      ...

With paramcount installed, pytest also offers the helper as a fixture, ``assert_param_count``
(the plugin :mod:`paramcount.pytest_plugin`). Importing this module does not import TensorFlow:
the model is already built by the caller.
"""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.analyze.verify import Verification, compare, keras_weights
from paramcount.model.registry import Architecture, get

__all__ = ["assert_param_count", "param_count_check"]


def param_count_check(model, arch: Architecture | str, /, *, preset: str | None = None,
                      hparams: Mapping[str, int] | None = None, **values: int) -> Verification:
    """Compare ``model``'s weights with ``arch``'s formula; returns the Verification (no raise).

    Hyperparameters come from ``preset`` (a published preset or example set of ``arch``), then
    ``hparams`` (a mapping), then keyword values on top; derived ones (``d_k = d_e/M``...) are
    filled in and constraints checked as everywhere else (a bad value raises a ParamcountError).
    """
    arch = get(arch) if isinstance(arch, str) else arch
    given: dict[str, int] = {}
    name = "model"
    if preset is not None:
        name = arch.preset(preset).name
    given.update(arch.given(preset, hparams))
    given.update(values)
    resolved = arch.resolve(given)
    return compare(arch, resolved, keras_weights(model), name=name)


def assert_param_count(model, arch: Architecture | str, /, *, preset: str | None = None,
                       hparams: Mapping[str, int] | None = None, **values: int) -> Verification:
    """Fail (AssertionError) unless ``model`` holds, component by component, the parameters of
    ``arch``'s formula at the given hyperparameters; returns the Verification when it does.

    See :func:`param_count_check` for how the hyperparameters are given.
    """
    __tracebackhide__ = True  # pytest: show the caller's line, not this one
    result = param_count_check(model, arch, preset=preset, hparams=hparams, **values)
    if not result.ok:
        raise AssertionError(failure_message(model, result))
    return result


def failure_message(model, result: Verification) -> str:
    hp = ", ".join(f"{k}={v}" for k, v in result.hparams.items())
    label = getattr(model, "name", None) or type(model).__name__
    where = "" if result.name == "model" else f" [{result.name}]"
    lines = [f"model {label!r} does not have the parameters of {result.arch}{where} ({hp}):",
             f"formula {result.formula:,}, model {result.reference:,} ({result.difference:+,})"]
    lines += [f"  - {m}" for m in result.mismatches()]
    return "\n".join(lines)
