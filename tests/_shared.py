"""Verifications shared by the tests of one run: each (architecture, preset) is built once."""

from __future__ import annotations

from functools import cache

from paramcount.verify import Verification, verify


@cache
def verified(arch_id: str, preset: str) -> Verification:
    return verify(arch_id, preset=preset)


def cached_verifier(arch_id: str, *, preset: str) -> Verification:
    return verified(arch_id, preset)
