"""Verifications shared by the tests of one run: each (architecture, preset) is built once."""

from __future__ import annotations

from paramcount.analyze.verify import Verification, verify

_VERIFIED: dict[tuple[str, str], Verification] = {}


def verified(arch_id: str, preset: str) -> Verification:
    """Against Keras; a model only transformers builds (Falcon-7B/40B) against transformers."""
    if (arch_id, preset) not in _VERIFIED:
        from paramcount.model import registry

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
    from paramcount.model import registry
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
