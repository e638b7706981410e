"""BLOOM: Falcon-RW plus an embedding norm."""

from __future__ import annotations

import sympy
from tests._shared import total_with_fixed

from paramcount.core.symbols import d_e


def test_bloom_is_falcon_rw_plus_an_embedding_norm():
    diff = sympy.expand(total_with_fixed("bloom") - total_with_fixed("falcon"))
    assert diff == 2 * d_e
