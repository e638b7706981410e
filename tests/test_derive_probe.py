"""The probing side of a derivation (paramcount.analyze.derive.probe, core's probes): how a build's
weights fold into templates, and what makes probing builds cheap; each on a tiny builder whose
answer is written by hand."""

from __future__ import annotations

import random

from tests._shared import torch_side


def _hybrid(cfg):
    """A hybrid stack (Jamba's, Zamba's): one ModuleList of layers of two classes, an attention
    layer every ``period``-th, a mixer the others; and a feed-forward Sequential of Linear,
    ReLU, Linear (CTRL's) in every layer."""
    from torch import nn

    h, L, k = cfg["hidden"], cfg["layers"], cfg["period"]

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(h, 3 * h, bias=False)
            self.ffn = nn.Sequential(nn.Linear(h, 2 * h), nn.ReLU(), nn.Linear(2 * h, h))

    class Mixer(nn.Module):
        def __init__(self):
            super().__init__()
            self.in_proj = nn.Linear(h, 4 * h, bias=False)
            self.ffn = nn.Sequential(nn.Linear(h, 2 * h), nn.ReLU(), nn.Linear(2 * h, h))

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(cfg["vocab"], h)
            self.layers = nn.ModuleList(Attention() if (i + 1) % k == 0 else Mixer()
                                        for i in range(L))

    return Model()


HYBRID = {"hidden": 16, "layers": 6, "period": 3, "vocab": 50}


def _hybrid_hand(p) -> int:
    h, L, k, v = p["hidden"], p["layers"], p["period"], p["vocab"]
    ffn = h * 2 * h + 2 * h + 2 * h * h + h
    return v * h + (L // k) * 3 * h * h + (L - L // k) * 4 * h * h + L * ffn


@torch_side
def test_a_layer_stack_of_two_classes_folds_its_index_a_sequential_keeps_it():
    """A ModuleList whose layers differ in class is a layer stack: its index folds, so each
    template counts the layers that have it (and a build costs what its layers cost, not one
    template per layer); a Sequential's children (Linear, ReLU, Linear) keep their places."""
    from paramcount.analyze.derive.probe import Observed, observe

    built = observe(_hybrid(HYBRID))
    assert built["layers.*.qkv.weight"] == Observed(2, (48, 16), "trainable")
    assert built["layers.*.in_proj.weight"] == Observed(4, (64, 16), "trainable")
    assert built["layers.*.ffn.0.weight"] == Observed(6, (32, 16), "trainable")
    assert built["layers.*.ffn.2.weight"] == Observed(6, (16, 32), "trainable")
    assert not any("layers.0" in k or "layers.5" in k for k in built)


@torch_side
def test_a_hybrid_stack_derives_to_the_hand_written_count():
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source

    d = derive(Source(builder=_hybrid, defaults=HYBRID, model_type="hybrid"))
    assert not d.failures, d.failures
    assert set(d.fields) == {"hidden", "layers", "period", "vocab"}
    rng = random.Random(5)
    for _ in range(6):
        p = {"hidden": rng.randint(1, 64), "layers": rng.randint(0, 30),
             "period": rng.randint(1, 7), "vocab": rng.randint(1, 300)}
        assert d.count(p)["trainable"] == _hybrid_hand(p), p


def _routed(cfg):
    """A mixture of experts whose top-k changes no weight but must not exceed the experts
    (Jamba's validator: num_experts_per_tok ≤ num_experts), and whose heads change no weight
    but must divide the width."""
    from torch import nn

    h, e = cfg["hidden"], cfg["experts"]
    if cfg["top_k"] > e:
        raise ValueError("top_k must be at most experts")
    if h % cfg["heads"]:
        raise ValueError("hidden must be divisible by heads")

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.router = nn.Linear(h, e, bias=False)
            self.experts = nn.ModuleList(nn.Linear(h, 2 * h, bias=False) for _ in range(e))

    return Model()


@torch_side
def test_a_width_bounded_by_a_field_that_changes_no_weight_derives():
    """The bound (top_k ≤ experts) names a field that changes no weight: the refusals' search
    reads it at its base value, where it crashed reading it from the sample (Jamba's
    KeyError: 'num_experts_per_tok')."""
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source

    d = derive(Source(builder=_routed, model_type="routed",
                      defaults={"hidden": 32, "experts": 8, "top_k": 2, "heads": 4}))
    assert not d.failures, d.failures
    assert set(d.fields) == {"hidden", "experts"}
    assert ("<=", "top_k", "experts") in d.constraints
    assert d.count({"hidden": 12, "experts": 5})["trainable"] == 12 * 5 + 5 * 12 * 24


def _patterned(cfg):
    """Jamba's layer pattern: an attention layer where i % period = offset (offset < period),
    a mixer elsewhere."""
    from torch import nn

    h, L, p, o = cfg["hidden"], cfg["layers"], cfg["period"], cfg["offset"]
    if o >= p:
        raise ValueError("offset must be smaller than period")

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList(nn.Linear(h, 3 * h, bias=False) if i % p == o
                                        else nn.Linear(h, 4 * h, bias=False) for i in range(L))

    return Model()


@torch_side
def test_a_period_its_first_variations_hide_is_found():
    """At 12 layers, an attention layer every 8th from the 4th is one layer at periods 16 and 9
    and at offsets 5 and 6: the probes go on to the variations that move a layer (period 7,
    offset 2), and the count is the shifted ceiling of both fields."""
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source

    d = derive(Source(builder=_patterned, model_type="patterned",
                      defaults={"hidden": 8, "layers": 12, "period": 8, "offset": 4}))
    assert not d.failures, d.failures
    assert {"period", "offset"} <= set(d.fields)
    for p in ({"hidden": 4, "layers": 30, "period": 7, "offset": 5},
              {"hidden": 4, "layers": 3, "period": 3, "offset": 2}):
        attn = sum(1 for i in range(p["layers"]) if i % p["period"] == p["offset"])
        hand = 4 * (3 * 4 * attn + 4 * 4 * (p["layers"] - attn))
        assert d.count(p)["trainable"] == hand, p
