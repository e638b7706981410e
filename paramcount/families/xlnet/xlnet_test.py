"""XLNet: xlnet-base-cased against the Hugging Face figure."""

from __future__ import annotations

from tests._shared import count


def test_xlnet_base_against_the_hugging_face_figure():
    # xlnet-base-cased holds 116,718,336 weights (no LM head): the same tensors KerasHub builds.
    assert count("xlnet", v=32000, d_e=768, M=12, d_f=3072, L=12) == 116_718_336


def _rel_attn_flops(t: int, b: int = 2) -> dict[str, int]:
    """What the cost measurement puts under XLNet's relative attention at the tiny set, by the
    last segment of its path (``scores``, or the parameters it was split among)."""
    from paramcount.model.weights import Named
    from paramcount.runtime import isolate

    hp = dict(v=100, d_e=32, M=4, d_f=64, L=2, d_k=8, d_v=8, T=t, B=b)
    flops = isolate.call("torch", Named("reference_models.hf_costs:costs", ("xlnet",)), hp)["flops"]
    out: dict[str, int] = {}
    for w in flops:
        if "rel_attn/" in w.path:
            last = w.path.rsplit("/", 1)[1]
            out[last] = out.get(last, 0) + w.size
    return out


def test_xlnet_relative_attention_flops_and_where_the_measurement_puts_them():
    """The declared reason (flops): the total under rel_attn is L·(2·B·T·(6·d_e·M·d_k +
    4·T·M·d_k) − 2·B·M·d_k·(2 − min(T, 2))) at T = 1 (the content scores multiplied
    elementwise, uncounted) and after, and it sits at rel_attn/scores at T = 5 but is split among
    the 3-axis parameters at T = 6: its place depends on T."""
    import pytest

    from paramcount.analyze.verify import transformers_missing

    if transformers_missing():
        pytest.skip("the transformers extra is not installed")
    d_e, md, layers, b = 32, 32, 2, 2
    for t in (1, 2, 5, 6):
        got = _rel_attn_flops(t, b)
        total = layers * (2 * b * t * (6 * d_e * md + 4 * t * md) - 2 * b * md * (2 - min(t, 2)))
        assert sum(got.values()) == total, (t, got)
        if t == 6:
            assert set(got) == {"q", "k", "v", "o", "r", "seg_embed"}, got
        else:
            assert set(got) == {"scores"}, (t, got)
