"""XLNet: xlnet-base-cased against the Hugging Face figure."""

from __future__ import annotations

from tests._shared import count


def test_xlnet_base_against_the_hugging_face_figure():
    # xlnet-base-cased holds 116,718,336 weights (no LM head): the same tensors KerasHub builds.
    assert count("xlnet", v=32000, d_e=768, M=12, d_f=3072, L=12) == 116_718_336
