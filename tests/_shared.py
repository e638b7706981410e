"""Verifications shared by the tests of one run: each (architecture, preset) is built once."""

from __future__ import annotations

from functools import cache

from paramcount.verify import Verification, verify


@cache
def verified(arch_id: str, preset: str) -> Verification:
    """Against Keras; a model only transformers builds (Falcon-7B/40B) against transformers."""
    from paramcount import registry

    checked_by = registry.get(arch_id).checked_by
    if "keras" in checked_by:
        return verify(arch_id, preset=preset)
    import pytest

    pytest.importorskip("torch")
    return verify(arch_id, preset=preset, framework=checked_by[0])


def cached_verifier(arch_id: str, *, preset: str, framework: str | None = None) -> Verification:
    """report.verify_all's verifier, shared: the framework is the one ``verified`` picks (the
    one report.verify_all names too)."""
    return verified(arch_id, preset)
