"""The original Transformer: the base model's closed form and options."""

from __future__ import annotations

import pytest
from tests._shared import breakdown
from tests._shared import count

from paramcount.core.errors import ConstraintError


def test_transformer_base_closed_form_and_options():
    base = dict(v_src=37000, v_tgt=37000, d_e=512, M=8, d_f=2048, L_enc=6, L_dec=6)
    attn = 4 * (512 * 512 + 512)
    ffn = 512 * 2048 + 2048 + 2048 * 512 + 512
    enc, dec = attn + ffn + 2 * 1024, 2 * attn + ffn + 3 * 1024
    assert count("transformer", **base, shared=1, tied=1) == 37000 * 512 + 6 * enc + 6 * dec
    assert count("transformer", **base, shared=1, tied=1) == 63_082_496
    assert count("transformer", **base) - count("transformer", **base, shared=1) == 37000 * 512
    assert count("transformer", **base) - count("transformer", **base, tied=1) == 512 * 37000 + 37000
    assert breakdown("transformer", **base)["embeddings"]["positions"] == 0
    with pytest.raises(ConstraintError, match="v_src"):
        count("transformer", **{**base, "v_tgt": 100}, shared=1)
