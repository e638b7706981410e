"""The probing side of a derivation (paramcount.analyze.derive.probe, core's probes): how a build's
weights fold into templates, and what makes probing builds cheap; each on a tiny builder whose
answer is written by hand."""

from __future__ import annotations

import random

import pytest

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


def _dict_experts(cfg):
    """NLLB-MoE's and Switch Transformers' experts: a ModuleDict keyed ``expert_0`` …
    ``expert_{E-1}`` in every ``step``-th layer, beside a dense feed-forward in the others."""
    from torch import nn

    h, L, k, e = cfg["hidden"], cfg["layers"], cfg["step"], cfg["experts"]

    class Experts(nn.ModuleDict):
        def __init__(self):
            super().__init__()
            for i in range(e):
                self[f"expert_{i}"] = nn.Linear(h, 2 * h)
            self["token_dropout"] = nn.Dropout(0.1)  # a key of no index beside them (NLLB-MoE's)

    class Layer(nn.Module):
        def __init__(self, sparse):
            super().__init__()
            self.attn = nn.Linear(h, h, bias=False)
            if sparse:
                self.router = nn.Linear(h, e, bias=False)
                self.experts = Experts()
            else:
                self.fc = nn.Linear(h, 3 * h, bias=False)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList(Layer(k > 0 and (i + 1) % k == 0) for i in range(L))

    return Model()


DICT_EXPERTS = {"hidden": 8, "layers": 8, "step": 2, "experts": 6}


@torch_side
def test_a_module_dict_numbered_from_0_folds_its_index_as_a_list_does():
    """``experts.expert_3`` is the fourth of a ModuleDict keyed ``expert_0`` … ``expert_5``: one
    template ``experts.expert_*`` naming every expert of every layer (a template per expert
    named a count no expression of the fields gives: expert_5 exists only where experts > 5)."""
    from paramcount.analyze.derive.probe import Observed, fold, observe

    built = observe(_dict_experts(DICT_EXPERTS))
    assert built["layers.*.experts.expert_*.weight"] == Observed(4 * 6, (16, 8), "trainable")
    assert not any("expert_0" in k or "expert_5" in k for k in built)
    assert fold("a.block_1.w", numbered=frozenset({"a"})) == "a.block_*.w"
    assert fold("a.block_1.w") == "a.block_1.w"  # only under a numbered ModuleDict


@torch_side
def test_experts_of_a_numbered_module_dict_derive_to_the_hand_written_count():
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source

    d = derive(Source(builder=_dict_experts, defaults=DICT_EXPERTS, model_type="dict_experts"))
    assert not d.failures, d.failures
    rng = random.Random(3)
    for _ in range(6):
        h, L, k, e = (rng.randint(1, 40), rng.randint(0, 20), rng.randint(1, 5),
                      rng.randint(1, 20))
        sparse = L // k
        hand = L * h * h + sparse * (h * e + e * (2 * h * h + 2 * h)) + (L - sparse) * 3 * h * h
        p = {"hidden": h, "layers": L, "step": k, "experts": e}
        assert d.count(p)["trainable"] == hand, p


def _swapped(cfg):
    """Marian's head: ``vocab`` wide where ``share`` is on, else ``dvocab`` wide, the two equal at
    the base (so no probe there sees the flag swap them); tied to the decoder's embedding, and
    so absent, where ``tie`` is on (at the base)."""
    from torch import nn

    h, v, dv = cfg["hidden"], cfg["vocab"], cfg["dvocab"]

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(v, h)
            self.dec_embed = nn.Embedding(dv, h)
            self.layers = nn.ModuleList(nn.Linear(h, cfg["ffn"]) for _ in range(cfg["layers"]))
            if not cfg["tie"]:
                self.head = nn.Linear(h, v if cfg["share"] else dv, bias=False)
            if cfg["own"] and not cfg["share"]:  # a weight the flag adds too (Marian's decoder
                self.dec_norm = nn.LayerNorm(h)  # embedding, apart where not shared)

    return Model()


SWAPPED = {"hidden": 16, "vocab": 60, "dvocab": 60, "ffn": 24, "layers": 3, "share": True,
           "tie": True}


@torch_side
@pytest.mark.parametrize("own", [False, True])
def test_a_flag_swapping_two_fields_equal_at_the_base_is_probed_where_they_are_apart(own):
    """Flipping ``share`` at the base changes no weight of the head (vocab = dvocab there): the
    flag is flipped again where the two are apart, and the head's width reads the flag and
    both fields (Marian's LM head fitted a chance floor of its vocabulary without them). With
    ``own``, the flag adds a weight of its own, and so is switched on with ``tie`` before the
    head is probed: flipped back there."""
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source

    d = derive(Source(builder=_swapped, defaults={**SWAPPED, "own": own}, model_type="swapped"))
    assert not d.failures, d.failures
    head = next(t for t in d.templates if t.name == "head.weight")
    rng = random.Random(11)
    for _ in range(20):
        p = {"hidden": rng.randint(1, 99), "vocab": rng.randint(1, 999),
             "dvocab": rng.randint(1, 999), "ffn": 5, "layers": 2,
             "share": rng.randint(0, 1), "tie": 0, "own": int(own)}
        from paramcount.analyze.derive import fit

        assert fit.evaluate(head.dims[0], p) == (p["vocab"] if p["share"] else p["dvocab"]), p


def test_experts_of_a_numbered_module_dict_are_probed_shrunk():
    """128 experts in each of 3 sparse layers name 384 weights a template (NLLB-MoE's): the
    probes build 12 of them (a base-size build of 768 experts cost a second and a half, and the
    derivation ran past the sweep's ten minutes), as they build 12 layers of more."""
    from paramcount.analyze.derive import core
    from paramcount.analyze.derive.probe import Observed

    base = {"layers.*.moe.router.weight": Observed(3, (128, 8), "trainable"),
            "layers.*.moe.experts.expert_*.fc1.weight": Observed(3 * 128, (16, 8), "trainable"),
            "layers.*.attn.weight": Observed(6, (8, 8), "trainable")}  # (384 / 6: capacity's)

    class Run:
        def try_build(self, at):
            return base

    values = {"num_experts": 128, "layers": 6, "capacity": 64, "hidden": 8}
    assert core._shrunk(Run(), base, values, list(values)) == {"num_experts": core.SHRINK}


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


def _adapters(cfg):
    """Zamba 2's adapters in miniature: each layer a list of slots, each slot a pipeline
    Sequential(Linear(hidden, rank), Linear(rank, 2·inner)) (its two stages one class)."""
    from torch import nn

    h, r, i = cfg["hidden"], cfg["rank"], cfg["inner"]
    return nn.ModuleList(nn.ModuleList(
        nn.Sequential(nn.Linear(h, r, bias=False), nn.Linear(r, 2 * i, bias=False))
        for _ in range(cfg["slots"])) for _ in range(cfg["layers"]))


@torch_side
def test_a_pipelines_stages_are_split_by_place_even_where_their_shapes_coincide():
    """Split by shape (``@1``, ``@2``), a build whose two stages coincide in shape (rank =
    hidden = 2·inner) named them all one template, twice as many: no count of the fields."""
    from paramcount.analyze.derive.probe import Observed, observe

    split: set[str] = set()
    apart = observe(_adapters({"hidden": 8, "rank": 3, "inner": 5, "slots": 2, "layers": 3}),
                    split)
    assert apart == {"*.*.*.weight@p0": Observed(6, (3, 8), "trainable"),
                     "*.*.*.weight@p1": Observed(6, (10, 3), "trainable")}
    same = observe(_adapters({"hidden": 4, "rank": 4, "inner": 2, "slots": 2, "layers": 2}),
                   split)
    assert same == {"*.*.*.weight@p0": Observed(4, (4, 4), "trainable"),
                    "*.*.*.weight@p1": Observed(4, (4, 4), "trainable")}


def _two_kinds(cfg):
    """Even layers ``a`` wide, odd ones ``b`` (equal at the base: one template until a probe
    sets them apart, Inkling 2's sliding and full attention heads); ``window`` no weight."""
    from types import SimpleNamespace

    from torch import nn

    h, L = cfg["hidden"], cfg["layers"]

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.config = SimpleNamespace(layer_types=["even", "odd"] * L)  # (the kinds read)
            self.layers = nn.ModuleList(nn.Linear(h, cfg["a"] if i % 2 == 0 else cfg["b"],
                                                  bias=False) for i in range(L))

    return Model()


@torch_side
def test_fields_probed_after_a_template_splits_are_probed_against_the_split_base():
    """A probe that splits a template by layer (``a`` set apart from ``b``) makes every later
    build's templates other than the reference's: the later fields are probed again against
    the base observed split, so a field that changes no weight is not a hyperparameter."""
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source

    d = derive(Source(builder=_two_kinds, model_type="two_kinds",
                      defaults={"a": 4, "b": 4, "hidden": 8, "layers": 4, "window": 64}))
    assert not d.failures, d.failures
    assert set(d.fields) == {"a", "b", "hidden", "layers"} and "window" in d.inert
    p = {"a": 3, "b": 5, "hidden": 2, "layers": 7}
    assert d.count(p)["trainable"] == 2 * (4 * 3 + 3 * 5)


@torch_side
def test_a_config_built_before_is_not_built_again():
    """A derivation asks for the same config more than once (a probe's reference, a variation
    two probes share): Source.observe remembers its templates, by the config's values, so the
    builder runs once for it; another config is built, and what is returned is a copy."""
    from paramcount.analyze.derive.probe import Source

    calls = []

    def builder(cfg):
        calls.append(dict(cfg))
        return _hybrid(cfg)

    src = Source(builder=builder, defaults=HYBRID)
    first = src.observe({"layers": 6})
    first.clear()  # a caller's change to what it was given is its own
    again = src.observe({"layers": 6})
    assert len(calls) == 1 and again == src.observe({})  # the base's values: the same build
    assert again["layers.*.qkv.weight"].count == 2
    assert src.observe({"layers": 9})["layers.*.qkv.weight"].count == 3 and len(calls) == 2
