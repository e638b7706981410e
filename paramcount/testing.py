r"""Assert, in a user's own tests, that a Keras model has the parameters the formula says.

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

Weights are matched by name. A model built with other layer names than the architecture's Keras
build (``decoder_block_0`` for KerasHub's ``transformer_layer_0``) fails however right its
counts: the message then names what each component expected, the model's weights no component
claimed (a bounded list), and how to map the names, ``rename={r"decoder_block_(\d+)":
r"transformer_layer_\1"}`` (each a regular expression over a weight's path and its replacement,
applied in order before the weights are attributed).

With paramcount installed, pytest also offers the helper as a fixture, ``assert_param_count``
(the plugin :mod:`paramcount.pytest_plugin`). Importing this module does not import TensorFlow:
the model is already built by the caller.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from paramcount.analyze.verify import Verification, compare, keras_weights
from paramcount.model.registry import Architecture, get
from paramcount.model.weights import Weight

__all__ = ["assert_param_count", "param_count_check"]


def param_count_check(model, arch: Architecture | str, /, *, preset: str | None = None,
                      hparams: Mapping[str, int] | None = None,
                      rename: Mapping[str, str] | None = None, **values: int) -> Verification:
    """Compare ``model``'s weights with ``arch``'s formula; returns the Verification (no raise).

    Hyperparameters come from ``preset`` (a published preset or example set of ``arch``), then
    ``hparams`` (a mapping), then keyword values on top; derived ones (``d_k = d_e/M``...) are
    filled in and constraints checked as everywhere else (a bad value raises a ParamcountError).
    ``rename`` maps the model's weight names onto the architecture's (see :func:`renamed`).
    """
    arch = get(arch) if isinstance(arch, str) else arch
    given: dict[str, int] = {}
    name = "model"
    if preset is not None:
        name = arch.preset(preset).name
    given.update(arch.given(preset, hparams))
    given.update(values)
    resolved = arch.resolve(given)
    return compare(arch, resolved, renamed(keras_weights(model), rename), name=name)


def renamed(weights: list[Weight], rename: Mapping[str, str] | None) -> list[Weight]:
    """``weights`` with each path rewritten by ``rename``: regular expression -> replacement
    (``re.sub``), every rule in order on every path, before any weight is attributed."""
    if not rename:
        return weights
    rules = [(re.compile(pattern), repl) for pattern, repl in rename.items()]
    out = []
    for w in weights:
        path = w.path
        for pattern, repl in rules:
            path = pattern.sub(repl, path)
        out.append(replace(w, path=path))
    return out


def assert_param_count(model, arch: Architecture | str, /, *, preset: str | None = None,
                       hparams: Mapping[str, int] | None = None,
                       rename: Mapping[str, str] | None = None, **values: int) -> Verification:
    """Fail (AssertionError) unless ``model`` holds, component by component, the parameters of
    ``arch``'s formula at the given hyperparameters; returns the Verification when it does.

    See :func:`param_count_check` for how the hyperparameters are given.
    """
    __tracebackhide__ = True  # pytest: show the caller's line, not this one
    arch = get(arch) if isinstance(arch, str) else arch
    result = param_count_check(model, arch, preset=preset, hparams=hparams, rename=rename,
                               **values)
    if not result.ok:
        raise AssertionError(failure_message(model, result, arch))
    return result


#: How many weight names (and expected names) a failure lists: enough to see the pattern of a
#: renaming, while a model of 80 blocks, all named otherwise, still fails in one screen.
SHOWN = 10


def failure_message(model, result: Verification, arch: Architecture | None = None) -> str:
    hp = ", ".join(f"{k}={v}" for k, v in result.hparams.items())
    label = getattr(model, "name", None) or type(model).__name__
    where = "" if result.name == "model" else f" [{result.name}]"
    lines = [f"model {label!r} does not have the parameters of {result.arch}{where} ({hp}):",
             f"formula {result.formula:,}, model {result.reference:,} ({result.difference:+,})"]
    # mismatches() lists the components that differ, then the unclaimed weights, then the rest:
    # the unclaimed ones, one a weight, are cut to SHOWN (the formats stay verify's own)
    problems = result.mismatches()
    differ = sum(not c.ok for c in result.components)
    unclaimed = problems[differ:differ + len(result.unclaimed)]
    lines += [f"  - {m}" for m in problems[:differ] + unclaimed[:SHOWN]]
    if len(unclaimed) > SHOWN:
        rest = result.unclaimed[SHOWN:]
        lines.append(f"  - ... and {len(rest):,} more unclaimed {result.reference_label} weights "
                     f"({sum(w.size for w in rest):,} parameters)")
    lines += [f"  - {m}" for m in problems[differ + len(result.unclaimed):]]
    return "\n".join(lines + names_hint(result, arch or get(result.arch)))


def names_hint(result: Verification, arch: Architecture) -> list[str]:
    """When components miss weights and the model has weights no component claims, the likely
    cause is names (the totals may even agree): say what each short component expected, by the
    names it matches, and how to map the model's names onto them. Nothing otherwise."""
    short = [c for c in result.components if c.difference < 0]
    if not (short and result.unclaimed):
        return []
    matches = {path: term.match for path, _, term in arch.formula.walk() if term.match}
    ref = result.reference_label
    lines = [f"Weights are matched by name. If the model's layers are named otherwise than in "
             f"{result.arch}'s {ref} build, the components short of their count expect "
             f"(regular expressions, each over whole segments of a weight's path):"]
    for c in short[:SHOWN]:
        parts = c.path.split(".")
        names = [matches[p] for p in (".".join(parts[:i]) for i in range(1, len(parts) + 1))
                 if p in matches]
        lines.append(f"    {c.path}: {'/'.join(names) or '(no name: claims no weight)'}")
    if len(short) > SHOWN:
        lines.append(f"    ... and {len(short) - SHOWN:,} more components")
    lines += [f"Name the layers as {result.arch}'s {ref} build does, or map the model's names onto "
              f"its with rename= (regular expression: replacement, re.sub over each weight's path, "
              f"in order), e.g. rename={{r\"decoder_block_(\\d+)\": r\"transformer_layer_\\1\"}}:",
              f"    assert_param_count(model, \"{result.arch}\", ..., "
              f"rename={{r\"<the model's name>\": r\"<the name expected>\"}})"]
    return lines
