"""Gemma 3 vision: where the cost measurement puts the products its FLOPs tree cannot claim
(the reason it declares)."""

from __future__ import annotations

import pytest

from paramcount.analyze.verify import transformers_missing


@pytest.mark.skipif(transformers_missing(), reason="the transformers extra is not installed")
def test_the_projector_and_encoder_scores_are_measured_where_no_leaf_claims_them():
    """At the tiny set (a 32-pixel image of 8-pixel patches: 16 patches, pooled into the builds'
    one image token) the projector's matmul, 2·B·1·d_vis·d_e, is measured at
    multi_modal_projector/scores, and each encoder layer's scores and values, 2·B·16·16·2·d_vis,
    at its self_attn/scores: the same at T = 6 and 11, where an attention's own scores in the
    tree grow with T."""
    from paramcount.model import registry
    from paramcount.model.weights import Named
    from paramcount.runtime import isolate

    arch = registry.get("gemma3_vision")
    hp = arch.resolve(dict(arch.preset("tiny").hparams))
    b, patches = 2, (hp["H"] // hp["P"]) ** 2
    for t in (6, 11):
        flops = isolate.call("torch", Named("reference_models.hf_costs:costs", ("gemma3_vision",)),
                             {**hp, "T": t, "B": b})["flops"]
        at = {w.path: w.size for w in flops}
        assert at["model/multi_modal_projector/scores"] == 2 * b * 1 * hp["d_vis"] * hp["d_e"]
        encoder = {p: n for p, n in at.items() if p.startswith("model/vision_tower/")
                   and p.endswith("self_attn/scores")}
        assert len(encoder) == hp["L_vis"], at
        assert set(encoder.values()) == {2 * b * patches * patches * 2 * hp["d_vis"]}, encoder
