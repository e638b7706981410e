"""The Transformer encoder and decoder language models: keras-io's text-generation GPT, and the
paper's free head widths and bias."""

from __future__ import annotations

import pytest
from tests._shared import count

from paramcount.model import registry


def test_keras_io_text_generation_gpt_floors_its_head_width():
    # keras-io's text_generation_gpt: TokenAndPositionEmbedding, 2 TransformerDecoder blocks,
    # Dense(v) head; d_e = 256 with M = 3 heads, which KerasHub floors to 3 heads of 85.
    hp = dict(v=5000, n=128, d_e=256, M=3, d_f=128, L=2)
    attn = 3 * (256 * 255 + 255) + 255 * 256 + 256
    block = attn + (256 * 128 + 128 + 128 * 256 + 256) + 2 * 2 * 256
    assert count("transformer_decoder", **hp) == 5000 * 256 + 128 * 256 + 2 * block + 256 * 5000 + 5000
    assert count("transformer_decoder", **hp) == 3_255_938
    assert registry.get("transformer_decoder").resolve(hp)["d_k"] == 85


@pytest.mark.parametrize("arch_id", ["transformer_encoder", "transformer_decoder"])
def test_transformer_lm_head_widths_and_bias_are_free_as_in_the_paper(arch_id):
    # the paper's attention: 2·M·d_e·(d_k + d_v) + ζ·(M·(2·d_k + d_v) + d_e)
    hp = dict(v=97, n=9, d_e=20, M=3, d_f=11, L=2)
    def attn(d_k, d_v, z):
        return 2 * 3 * 20 * (d_k + d_v) + z * (3 * (2 * d_k + d_v) + 20)
    base = count(arch_id, **hp)  # KerasHub's: d_k = d_v = 20 // 3 = 6, ζ = 1
    assert count(arch_id, **hp, d_k=7, d_v=5, zeta=0) - base == 2 * (attn(7, 5, 0) - attn(6, 6, 1))
    assert count(arch_id, **hp, d_k=9) - base == 2 * (attn(9, 9, 1) - attn(6, 6, 1))  # d_v = d_k
