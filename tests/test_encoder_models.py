"""Encoder and encoder-decoder families beyond the generic conformance test: closed forms between
families, what each option changes, the parameter-sharing claims, and the T5 fast build's
faithfulness to the ordinary (traced) build."""

from __future__ import annotations

import pytest

from paramcount.model import registry
from paramcount.model.keras_hub_meta import published_params


def count(arch_id: str, **hp) -> int:
    arch = registry.get(arch_id)
    return arch.count(arch.resolve(hp))


BASE = dict(v=50265, n=512, d_e=768, M=12, d_f=3072, L=12)


def test_roberta_is_bert_without_segments_and_pooler():
    d = BASE["d_e"]
    bert = count("bert", **BASE, s=1)
    assert count("roberta", **BASE) == bert - d - (d * d + d)
    assert count("xlm_roberta", **BASE) == count("roberta", **BASE)
    assert count("distil_bert", **BASE) == count("roberta", **BASE)


def test_roberta_base_against_the_hugging_face_figure():
    # roberta-base holds 124,645,632 weights: 514 positions, a 1-row token-type table and a
    # pooler, none of which KerasHub keeps.
    d = 768
    assert count("roberta", **BASE) + 2 * d + d + (d * d + d) == 124_645_632


def test_albert_shared_block_counts_once():
    hp = dict(v=30000, n=512, d_emb=128, d_e=768, M=12, d_f=3072)
    one = count("albert", **hp, L=12)
    assert count("albert", **hp, L=24) == one  # depth without new blocks is free
    block = 4 * (768 * 768 + 768) + 2 * 768 * 3072 + 3072 + 768 + 4 * 768
    assert count("albert", **hp, L=12, L_g=2) == one + block
    assert count("albert", **hp, L=12, L_g=3, L_r=2) == one + 5 * block
    # Unshared, the same shape would be ALBERT's "not-shared" 12-block model (Lan et al. table 4).
    assert count("albert", **hp, L=12, L_g=12) == one + 11 * block


def test_albert_factorisation_saves_what_the_paper_says():
    # Factorised: V·E + E·H (+ biases, norms) instead of V·H.
    hp = dict(n=512, d_e=4096, M=64, d_f=16384, L=12, v=30000)
    small = count("albert", **hp, d_emb=128)
    wide = count("albert", **hp, d_emb=4096)
    saved = wide - small
    tables = (30000 + 512 + 2) * (4096 - 128) + 2 * (4096 - 128)  # token/position/segment, norm
    projection = (4096 - 128) * 4096
    assert saved == tables + projection


def test_electra_projection_only_when_widths_differ():
    hp = dict(v=30522, n=512, d_e=256, M=4, d_f=1024, L=12)
    arch = registry.get("electra")
    assert arch.resolve({**hp, "d_emb": 128})["eta"] == 1
    assert arch.resolve({**hp, "d_emb": 256})["eta"] == 0
    with_proj = count("electra", **hp, d_emb=128)
    # Widening the tables from 128 to 256 adds (v+n+s+2)·128 and removes the 128×256+256 layer.
    assert count("electra", **hp, d_emb=256) == with_proj + (30522 + 512 + 2 + 2) * 128 - (
        128 * 256 + 256)


def test_electra_base_discriminator_is_bert_base():
    hp = dict(v=30522, n=512, d_e=768, M=12, d_f=3072, L=12)
    assert count("electra", **hp, d_emb=768) == count("bert", **hp)


def test_deberta_count_ignores_sequence_length():
    hp = dict(v=128100, d_e=768, M=12, d_f=3072, L=12)
    assert count("deberta_v3", **hp, n=512) == count("deberta_v3", **hp, n=4096)
    assert count("deberta_v3", **hp, k_rel=512) - count("deberta_v3", **hp) == 512 * 768


def test_f_net_is_bert_without_attention_plus_a_projection():
    hp = dict(v=32000, n=512, d_e=768, d_f=3072, L=12)
    d = 768
    bert = count("bert", **hp, M=12, s=4)
    attention = 4 * (d * d + d)
    assert count("f_net", **hp) == bert - 12 * attention + (d * d + d)
    mixing = registry.get("f_net").formula.find("blocks.mixing")
    assert mixing.total() == 0 and "Fourier" in mixing.note


T5_SMALL = dict(v=32128, d_e=512, M=8, d_k=64, d_f=2048, L=6)


def test_t5_options_change_the_count_by_their_term():
    v1_0 = count("t5", **T5_SMALL, gated=0, tied=1)
    assert v1_0 == 60_506_624  # Raffel et al.'s T5-Small, as KerasHub publishes it
    gate = 2 * 6 * 512 * 2048  # one d_e×d_f matrix in each of L encoder and L decoder blocks
    assert count("t5", **T5_SMALL, gated=1, tied=1) == v1_0 + gate
    assert count("t5", **T5_SMALL, gated=0, tied=0) == v1_0 + 32128 * 512


def test_t5_relative_bias_is_first_layer_only():
    bias = registry.get("t5").formula.find("relative_position_bias")
    assert str(bias.total()) == "2*M*n_b"  # two tables (encoder, decoder), not 2·L
    hp = dict(v=100, d_e=32, M=4, d_f=48, gated=1, tied=0)
    block_pair = (4 + 8) * 32 * 32 + 2 * 3 * 32 * 48 + 5 * 32
    assert count("t5", **hp, L=3) - count("t5", **hp, L=2) == block_pair


def test_t5_default_key_width_is_floor_of_d_e_over_heads():
    arch = registry.get("t5")
    assert arch.resolve(dict(v=10, d_e=512, M=6, d_f=8, L=1))["d_k"] == 85


def test_t5_keras_hub_figures_that_omit_the_untied_head():
    for preset, d in (("t5_1.1_small", 512), ("t5_1.1_large", 1024)):
        hp = registry.get("t5").preset(preset).hparams
        assert published_params(preset) == count("t5", **hp) - 32128 * d
    # ...while the other untied presets include it.
    for preset in ("t5_1.1_base", "t5_1.1_xl", "t5_1.1_xxl", "flan_large_multi"):
        hp = registry.get("t5").preset(preset).hparams
        assert published_params(preset) == count("t5", **hp)


def test_bart_large_cnn_figure_is_bart_large_s():
    hp = registry.get("bart").preset("bart_large_en_cnn").hparams
    assert published_params("bart_large_en_cnn") == published_params("bart_large_en")
    assert published_params("bart_large_en_cnn") - count("bart", **hp) == 1024


def test_bart_is_two_paper_stacks_sharing_one_table():
    hp = dict(v=50265, n=1024, d_e=768, M=12, d_f=3072, L=6)
    d, f = 768, 3072
    enc_block = 4 * (d * d + d) + 2 * d * f + f + d + 4 * d
    dec_block = enc_block + 4 * (d * d + d) + 2 * d
    embeds = 50265 * d + 2 * (1024 * d + 2 * d)
    assert count("bart", **hp) == embeds + 6 * enc_block + 6 * dec_block == 139_417_344


@pytest.mark.parametrize(("gated", "tied"), [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_t5_fast_build_holds_the_traced_build_s_weights(gated, tied):
    import keras

    from paramcount.analyze.verify import keras_weights
    from reference_models import t5

    hp = dict(v=37, d_e=12, M=3, d_k=5, d_f=7, L=2, gated=gated, tied=tied)
    fast = keras_weights(t5.backbone(hp))
    keras.backend.clear_session()
    traced = keras_weights(t5.backbone_traced(hp))
    keras.backend.clear_session()
    assert fast == traced


def test_t5_fast_build_restores_the_classes():
    from keras_hub.src.models.t5.t5_multi_head_attention import T5MultiHeadAttention
    from keras_hub.src.models.t5.t5_transformer_layer import T5TransformerLayer

    from reference_models import t5

    before = {c: dict(c.__dict__) for c in (T5MultiHeadAttention, T5TransformerLayer)}
    with t5.fast_build():
        assert "build" in T5TransformerLayer.__dict__
    assert {c: dict(c.__dict__) for c in before} == before


def test_esm_options_change_the_count_by_their_term():
    hp = dict(v=33, d_e=320, M=20, d_f=1280, L=6)
    rotary = count("esm", **hp)
    assert rotary == published_params("esm2_t6_8M")
    assert count("esm", **hp, abs_pos=1, n=1026) == rotary + 1026 * 320
    assert count("esm", **hp, emb_norm=1) == rotary + 2 * 320
    biases = 6 * (4 * 320 + 1280 + 320)  # q, k, v, o and the two feed-forward layers
    assert count("esm", **hp, zeta=0) == rotary - biases


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


def test_xlnet_base_against_the_hugging_face_figure():
    # xlnet-base-cased holds 116,718,336 weights (no LM head): the same tensors KerasHub builds.
    assert count("xlnet", v=32000, d_e=768, M=12, d_f=3072, L=12) == 116_718_336
