"""T5Gemma: an unbalanced model's cross-attention reads the encoder's width."""

from __future__ import annotations

from paramcount.model import registry


def test_t5gemma_unbalanced_cross_attention_reads_the_encoder_width():
    arch = registry.get("t5gemma")
    key = arch.formula.find("decoder.cross_attention.key")
    query = arch.formula.find("decoder.cross_attention.query")
    assert str(key.expr) == "M_kv_dec*d_e*d_k_dec + M_kv_dec*d_k_dec*zeta"
    assert str(query.expr) == "M_dec*d_e_dec*d_k_dec + M_dec*d_k_dec*zeta"
    # 9B-2B = the 9B-9B encoder + the 2B-2B decoder whose cross-attention keys and values
    # read 3,584-wide encoder states instead of 2,304-wide ones.
    def parts(preset):
        hp = arch.preset(preset).hparams
        return arch.formula.breakdown(arch.values(arch.resolve(hp)))

    nine, two, mixed = (parts(f"t5gemma_{s}_ul2") for s in ("9b_9b", "2b_2b", "9b_2b"))
    assert mixed["encoder"] == nine["encoder"]
    widen = 26 * (3584 - 2304) * 4 * 256  # L_dec · Δwidth · M_kv_dec · d_k_dec, keys and values
    for proj in ("key", "value"):
        assert (mixed["decoder"]["cross_attention"][proj]
                == two["decoder"]["cross_attention"][proj] + widen)
    assert mixed["decoder"]["ffn"] == two["decoder"]["ffn"]
