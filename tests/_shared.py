"""What the tests of one run share: verifications (each (architecture, preset) is built once), and
the few helpers that tests of several families call (tests/ and the families' own tests beside
them, paramcount/families/<f>/<f>_test.py, import them from here, so none is written twice)."""

from __future__ import annotations

import json
from pathlib import Path

from paramcount.analyze.verify import Verification, verify
from paramcount.model import registry

# The published config.json files the tests read, found from this file: a family's own test
# (paramcount/families/<f>/<f>_test.py) reads tests/configs/ through this name too.
CONFIGS = Path(__file__).with_name("configs")

_VERIFIED: dict[tuple[str, str], Verification] = {}


def verified(arch_id: str, preset: str) -> Verification:
    """Against Keras; a model only transformers builds (Falcon-7B/40B) against transformers."""
    if (arch_id, preset) not in _VERIFIED:
        checked_by = registry.get(arch_id).checked_by
        if "keras" not in checked_by:
            needs_transformers()
        _VERIFIED[arch_id, preset] = verify(arch_id, preset=preset, framework=(
            "keras" if "keras" in checked_by else checked_by[0]))
    return _VERIFIED[arch_id, preset]


def all_verified() -> list[Verification]:
    """``report.verify_all(verifier=cached_verifier)``: every set, built once per test process. The
    sets only transformers builds go to a torch worker first, verified there while this process
    builds the Keras ones, instead of one after the other."""
    from paramcount.output import report
    from paramcount.runtime import isolate

    jobs = [(aid, hs.name) for aid in sorted(registry.architectures())
            if aid not in report.left_out() for hs in registry.get(aid).hparam_sets()]
    elsewhere = [(a, p) for a, p in jobs if "keras" not in registry.get(a).checked_by
                 and (a, p) not in _VERIFIED]
    pending = isolate.begin("torch", _verify_here, elsewhere) if elsewhere else None
    for aid, preset in jobs:
        if "keras" in registry.get(aid).checked_by:
            verified(aid, preset)
    if pending is not None:
        _VERIFIED.update(zip(elsewhere, pending(), strict=True))
    return report.verify_all(verifier=cached_verifier)


def _verify_here(jobs: list[tuple[str, str]]) -> list[Verification]:
    return [verified(aid, preset) for aid, preset in jobs]


def cached_verifier(arch_id: str, *, preset: str, framework: str | None = None) -> Verification:
    """report.verify_all's verifier, shared: the framework is the one ``verified`` picks (the
    one report.verify_all names too)."""
    return verified(arch_id, preset)


def needs_transformers() -> None:
    """Skip without the transformers extra, found without importing torch (the test process may
    hold TensorFlow: paramcount.runtime.isolate)."""
    import pytest

    from paramcount.analyze.verify import transformers_missing

    missing = transformers_missing()
    if missing:
        pytest.skip(f"{missing} is not installed (the transformers extra)")


def torch_side(test):
    """Run a test's body in a torch worker (paramcount.runtime.isolate): a test process may hold
    TensorFlow (pytest-xdist gives one process test files of both kinds), so torch and
    transformers are never imported here. The body imports them itself; its arguments (no
    fixtures but values: tmp_path, parameters) and its exceptions travel pickled."""
    import functools

    @functools.wraps(test)
    def run(*args, **kwargs):
        from paramcount.runtime import isolate

        needs_transformers()
        return isolate.call("torch", _torch_side_body, test.__module__, test.__name__, args,
                            kwargs)

    return run


def _torch_side_body(module: str, name: str, args: tuple, kwargs: dict):
    import importlib

    return getattr(importlib.import_module(module), name).__wrapped__(*args, **kwargs)


def on_torch(fn, *args):
    """``fn(*args)`` in a torch worker (``fn``: a module-level function of a test module)."""
    from paramcount.runtime import isolate

    needs_transformers()
    return isolate.call("torch", fn, *args)


_DERIVED: dict[str, tuple] = {}


def derive_tiny(builder, defaults: dict, model_type: str) -> tuple:
    """A tiny torch builder's Source and derivation, derived once per torch worker (from a
    :func:`torch_side` test: it builds with torch)."""
    if model_type not in _DERIVED:
        from paramcount.analyze.derive.core import derive
        from paramcount.analyze.derive.probe import Source

        src = Source(builder=builder, defaults=defaults, model_type=model_type)
        _DERIVED[model_type] = (src, derive(src))
    return _DERIVED[model_type]


# --- counting helpers shared by the tests of several families ---------------------------------
def count(arch_id: str, **hp) -> int:
    """The count of ``arch_id`` at ``hp`` (resolved: its defaults and derived values filled in)."""
    arch = registry.get(arch_id)
    return arch.count(arch.resolve(hp))


def resolved(arch_id: str, preset: str) -> dict[str, int]:
    """A preset's hyperparameters, resolved."""
    arch = registry.get(arch_id)
    return arch.resolve(arch.preset(preset).hparams)


def breakdown(arch_id: str, **hp) -> dict:
    """The formula's nested breakdown of ``arch_id`` at ``hp``."""
    arch = registry.get(arch_id)
    return arch.formula.breakdown(arch.values(arch.resolve(hp)))


def total_with_fixed(arch_id: str):
    """The total with the fixed values in, where M divides d_e (KerasHub's floor(d_e/M) is then
    d_e/M): the case every published checkpoint is in, and the only one some families allow."""
    import sympy

    arch = registry.get(arch_id)
    total = arch.total().subs(arch.fixed)
    return sympy.expand(total.replace(lambda t: isinstance(t, sympy.floor), lambda t: t.args[0]))


def count_json(capsys, *args) -> dict:
    """``paramcount count ARGS --json``, which must succeed, read back as JSON."""
    from paramcount.cli.main import main

    assert main(["count", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def built_values(arch_id: str, preset: str, framework: str = "keras"):
    """(the architecture as ``framework`` builds it at a preset, its symbols' values there)."""
    from paramcount.model.frameworks import for_framework

    arch = registry.get(arch_id)
    hp = arch.resolve(arch.preset(preset).hparams)
    built = for_framework(arch, framework, hp)
    return built, built.values(hp)


def active_and_table(arch_id: str, preset: str) -> tuple[int, int]:
    """(active per token, the token table's size) at a preset, as transformers builds it."""
    arch, values = built_values(arch_id, preset, "transformers")
    active = int(arch.formula.active_total().subs(values))
    return active, int(arch.formula.find("embeddings.token").total().subs(values))
