"""Layer composition from a config's per-layer lists (paramcount.analyze.derive.layers): how many layers
carry a template is a count of a list's entries, read from any config and written for a build;
a tiny torch builder whose answer is written by hand, derived and proven."""

from __future__ import annotations

import random

import pytest

from paramcount.analyze.derive import layers
from tests._shared import derive_tiny, torch_side

# --- reading and writing the lists (no torch) ---------------------------------------------------

BEAM_LIKE = {"num_hidden_layers": 7, "hidden_size": 8,
             "mlp_layer_types": ["dense"] * 3 + ["sparse"] * 4,
             "layer_types": ["sliding", "sliding", "full", "sliding", "sliding", "full", "full"],
             "cross_attention_layers": [3, 5], "mlp_only_layers": [], "intermediate": [4, 4],
             "rope": {"full": 1}, "moe_layer_end_index": 7,
             "attn_layers": ["lsh", "local"] * 3 + ["lsh"], "cycles": [1, 2]}


def test_lists_found_with_their_layer_count_and_the_most_common_kind_as_remainder():
    specs = {s.field: s for s in layers.find(BEAM_LIKE)}
    assert set(specs) == {"mlp_layer_types", "layer_types", "cross_attention_layers"}
    assert specs["mlp_layer_types"] == layers.Spec("mlp_layer_types", "num_hidden_layers",
                                                   ("dense", "sparse"))
    assert specs["layer_types"].kinds == ("full", "sliding")  # sliding: the remainder
    assert specs["cross_attention_layers"].kinds == ()
    assert layers.read(BEAM_LIKE, layers.find(BEAM_LIKE)) == {
        "n_mlp_layer_types_dense": 3, "n_layer_types_full": 3, "n_cross_attention_layers": 2}


# a tail: the last ``shared_layers`` reuse the keys of those before them (Gemma's
# num_kv_shared_layers), so a full-attention key norm is on the full layers before the tail
TAILED = layers.Spec("layer_types", "L", ("full", "sliding"), tail="shared_layers")


def test_a_tail_takes_a_lists_counts_apart_before_it_and_within_it():
    within = "n_layer_types_sliding_in_shared_layers"
    assert TAILED.names == ("n_layer_types_full", within)
    w = layers.write({"L": 10, "shared_layers": 4, "n_layer_types_full": 2, within: 2},
                     [TAILED], {})
    assert w["layer_types"][:6].count("full") == 2 and w["layer_types"][6:].count("sliding") == 2
    assert w["layer_types"][-1] == "full"  # the tail's remainder ends the stack
    assert layers.read(w, [TAILED]) == {"n_layer_types_full": 2, within: 2}
    # no tail: every layer before it, the tail's counts cut to none
    w = layers.write({"L": 5, "shared_layers": 0, "n_layer_types_full": 2, within: 3},
                     [TAILED], {})
    assert layers.read(w, [TAILED]) == {"n_layer_types_full": 2, within: 0}
    assert TAILED.counted()[within] == ("layer_types[L - shared_layers:]", "L", "sliding")


def test_a_tail_is_the_layer_count_one_more_of_which_changes_the_layer_it_adds():
    def weights(over):  # the last shared_layers have no key; layers from first_layers a bias
        shared, first = over.get("shared_layers", 2), over.get("first_layers", 1)
        return [(f"layers.{i}.{w}.weight", (4,)) for i in range(8)
                for w in ("q", *(("k",) if i < 8 - shared else ()),
                          *(("b",) if i >= first else ()))]

    spec = layers.Spec("layer_types", "L", ("full", "sliding"))
    raw = {"L": 8, "shared_layers": 2, "first_layers": 1, "layer_types": ["sliding", "full"] * 4}
    assert layers.with_tail(spec, raw, weights) == TAILED
    # a count one more of which changes another layer (the first layers') is no tail
    assert layers.with_tail(spec, {**raw, "shared_layers": 7}, weights) == spec


def test_an_index_list_counts_only_the_layers_there_are():
    spec = layers.Spec("cross", "L")
    assert layers.read({"L": 4, "cross": [1, 3, 8, 38]}, [spec]) == {"n_cross": 2}


def test_written_lists_have_the_counts_asked_spread_with_the_last_layer_counted():
    specs = layers.find(BEAM_LIKE)
    out = layers.write({"num_hidden_layers": 10, "n_layer_types_full": 3,
                        "n_mlp_layer_types_dense": 0, "n_cross_attention_layers": 4,
                        "hidden_size": 8}, specs, BEAM_LIKE)
    assert out["layer_types"] == ["sliding"] * 3 + ["full"] + ["sliding"] * 2 + ["full"] \
        + ["sliding"] * 2 + ["full"]
    assert out["mlp_layer_types"] == ["sparse"] * 10
    assert out["cross_attention_layers"] == [2, 4, 7, 9]
    # the first layer the remainder's, unless every layer is counted
    assert [layers._spread(n, list(range(4))) for n in range(5)] == \
        [[], [3], [1, 3], [1, 2, 3], [0, 1, 2, 3]]
    assert not set(layers.names(specs)) & out.keys()
    assert layers.read(out, specs) == {"n_mlp_layer_types_dense": 0, "n_layer_types_full": 3,
                                       "n_cross_attention_layers": 4}
    # a count beyond the layers (one no weight reads, kept at its base value) is cut to them
    assert layers.write({"num_hidden_layers": 2, "n_layer_types_full": 3}, specs,
                        BEAM_LIKE)["layer_types"] == ["full", "full"]
    with pytest.raises(ValueError, match="below 0"):
        layers.write({"n_layer_types_full": -1}, specs, BEAM_LIKE)
    # the layer count not given: the base's
    assert len(layers.write({"n_layer_types_full": 1}, specs, BEAM_LIKE)["layer_types"]) == 7


# --- a tiny torch builder with a hand-written answer --------------------------------------------


def _stack(cfg):
    from torch import nn

    h, n = cfg["hidden"], cfg["layers"]
    kinds, cross = cfg["mlp_types"], cfg["cross_layers"]
    if len(kinds) != n:
        raise ValueError(f"mlp_types has {len(kinds)} entries for {n} layers")

    class Layer(nn.Module):
        def __init__(self, i):
            super().__init__()
            self.attn = nn.Linear(h, h)
            if kinds[i] == "dense":
                self.mlp = nn.Linear(h, 4 * h)
            else:
                self.experts = nn.Linear(h, 2 * h, bias=False)
            if i in cross:
                self.cross_attn = nn.Linear(h, h, bias=False)

    class Stack(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList(Layer(i) for i in range(n))

    return Stack()


STACK = {"hidden": 16, "layers": 6, "mlp_types": ["dense"] * 2 + ["sparse"] * 4,
         "cross_layers": [2, 4]}


def _hand(p):
    h, n, dense, cross = p["hidden"], p["layers"], p["n_mlp_types_dense"], p["n_cross_layers"]
    return n * (h * h + h) + dense * (4 * h * h + 4 * h) + (n - dense) * 2 * h * h \
        + cross * h * h


def _derived():
    return derive_tiny(_stack, STACK, "stack")


@torch_side
def test_a_stack_of_kinds_is_counted_by_its_lists_counts():
    _, d = _derived()
    assert not d.failures, d.failures
    assert set(d.fields) == {"hidden", "layers", "n_mlp_types_dense", "n_cross_layers"}
    assert d.counts == {"n_mlp_types_dense": ("mlp_types", "layers", "dense"),
                        "n_cross_layers": ("cross_layers", "layers", "")}
    # no build refuses more dense layers than layers (the list is written cut to them): where
    # the formula was derived, its domain, not a constraint (issue 32)
    assert ("<=", "n_mlp_types_dense", "layers") in d.domain and not d.constraints
    from paramcount.analyze.derive.tree import ties
    from paramcount.output.derive_output import header

    assert "n_mlp_types_dense = how many 'dense' entries mlp_types has" in "\n".join(
        header(d, False, ties(d)))
    rng = random.Random(5)
    for _ in range(6):
        n = rng.randint(1, 40)
        dense = rng.randint(0, n)
        p = {"hidden": rng.randint(1, 60), "layers": n, "n_mlp_types_dense": dense,
             "n_cross_layers": rng.randint(0, n)}
        assert d.count(p)["trainable"] == _hand(p)


@torch_side
def test_a_stack_of_kinds_is_proven_against_its_builds():
    src, d = _derived()
    from paramcount.analyze.derive.proof import prove_derivation
    from paramcount.analyze.derive.store import from_json, to_json

    assert from_json(to_json(d)).counts == d.counts
    proof = prove_derivation(d, src)
    assert [c.status for c in proof.cases] == ["proven"] * len(proof.cases), proof.cases


@torch_side
def test_a_stack_of_two_layer_classes_folds_its_indices():
    """Mllama's self- and cross-attention decoder layers: a ModuleList whose children differ
    in class, each a ``…Layer``, folds (a Sequential of Linear, ReLU, Linear stays literal)."""
    from torch import nn

    from paramcount.analyze.derive.probe import observe

    class SelfLayer(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = nn.LayerNorm(4)

    class CrossLayer(SelfLayer):
        def __init__(self):
            super().__init__()
            self.cross = nn.Linear(4, 4, bias=False)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([SelfLayer(), CrossLayer(), SelfLayer(), CrossLayer()])
            self.ffn = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 4))

    built = observe(M())
    assert built["layers.*.norm.weight"].count == 4
    assert built["layers.*.cross.weight"].count == 2
    assert {"ffn.0.weight", "ffn.2.weight"} <= built.keys()


@torch_side
def test_a_list_the_file_pins_follows_the_layer_count_where_its_kinds_change_no_weight():
    """A saved config states its ``layer_types`` (Exaone 4's: 32 entries, every fourth full
    attention), which its class insists is as long as ``num_hidden_layers``. Where the kinds
    change no weight their counts are no hyperparameters, yet a build at another layer count
    still needs the list at that length: it is written with the base's counts (cut to the
    layers), as the config file would be for that many layers."""
    from transformers import Exaone4Config

    from paramcount.analyze.derive.probe import Source

    saved = Exaone4Config(num_hidden_layers=8, hidden_size=32, intermediate_size=48,
                          num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                          vocab_size=64).to_dict()
    assert len(saved["layer_types"]) == 8
    src = Source(model_type="exaone4", config=saved)
    for n in (3, 13):
        cfg = src.config({"num_hidden_layers": n})
        assert len(cfg.layer_types) == n
        assert cfg.layer_types.count("full_attention") == min(2, n)


# --- a tail, end to end: Gemma 4's keys in miniature ------------------------------------------


def _shared(cfg):
    """The last ``shared_layers`` reuse the keys of the layers before them (no key weight);
    a full-attention layer before them has a wider, global key too."""
    from torch import nn

    h, n, s, kinds = cfg["hidden"], cfg["layers"], cfg["shared_layers"], cfg["layer_types"]
    if len(kinds) != n:
        raise ValueError(f"layer_types has {len(kinds)} entries for {n} layers")

    class Layer(nn.Module):
        def __init__(self, i):
            super().__init__()
            self.q = nn.Linear(h, h, bias=False)
            if i < n - s:
                self.k = nn.Linear(h, h, bias=False)
                if kinds[i] == "full":
                    self.global_k = nn.Linear(h, 2 * h, bias=False)
            elif cfg.get("double"):  # Gemma 4's use_double_wide_mlp: the shared layers' MLP
                self.mlp = nn.Linear(h, 2 * h, bias=False)

    class Stack(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList(Layer(i) for i in range(n))

    return Stack()


SHARED = {"hidden": 8, "layers": 6, "shared_layers": 2,
          "layer_types": ["sliding", "sliding", "full"] * 2}


@torch_side
def test_a_weight_before_a_tail_is_counted_by_the_kinds_before_it():
    src, d = derive_tiny(_shared, SHARED, "shared")
    assert not d.failures, d.failures
    assert d.fields == {"hidden": 8, "layers": 6, "shared_layers": 2, "n_layer_types_full": 1}
    assert d.counts["n_layer_types_full"] == ("layer_types[:layers - shared_layers]", "layers",
                                              "full")
    rng = random.Random(7)
    for _ in range(6):
        n = rng.randint(1, 40)
        s = rng.randint(0, n)
        p = {"hidden": rng.randint(1, 60), "layers": n, "shared_layers": s,
             "n_layer_types_full": rng.randint(0, n - s)}
        h = p["hidden"]
        assert d.count(p)["trainable"] == n * h * h + (n - s) * h * h \
            + p["n_layer_types_full"] * 2 * h * h
    from paramcount.analyze.derive.proof import prove_derivation

    proof = prove_derivation(d, src)
    assert [c.status for c in proof.cases] == ["proven"] * len(proof.cases), proof.cases


@torch_side
def test_a_flag_that_changes_weights_only_within_an_empty_tail_is_held_not_inert():
    """At the base no layer is shared, so a flag widening the shared layers' MLP (Gemma 4's
    use_double_wide_mlp) changes no weight there: probed again with the tail non-empty, it
    does, so it is held at its value (not listed as changing no weight)."""
    _, d = derive_tiny(_shared, {**SHARED, "shared_layers": 0, "double": False},
                        "shared_double")
    assert "double" not in d.inert and "double" not in d.fields
    assert d.held["double"] == 0 and "shared_layers > 0" in d.unvaried["double"]


@pytest.mark.slow
@torch_side
def test_gemma_4s_double_wide_mlp_is_held_not_listed_as_changing_no_weight():
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source

    d = derive(Source(model_type="gemma4_text"))  # (its base shares no layer's keys)
    assert "use_double_wide_mlp" not in d.inert and d.held["use_double_wide_mlp"] == 0


def _first_less(cfg):
    """Inkling 2's stack: every layer but the first reads its input through a query of its
    kind's width (three for the full-attention kind, one for the sliding)."""
    import torch
    from torch import nn

    h, n, kinds = cfg["hidden"], cfg["layers"], cfg["layer_types"]

    class Layer(nn.Module):
        def __init__(self, i):
            super().__init__()
            self.mix = nn.Linear(h, h, bias=False)
            if i > 0 and kinds[i] == "full":
                self.full_query = nn.Parameter(torch.empty(3, h))
            elif i > 0:
                self.slide_query = nn.Parameter(torch.empty(h))

    class Stack(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList(Layer(i) for i in range(n))

    return Stack()


@torch_side
def test_a_weight_of_every_layer_but_the_first_is_counted_with_the_layers():
    """A kind's count alone does not say whether the kind holds layer 0, which has no query:
    its layers are read with it (all full: one fewer full query; else one fewer sliding)."""
    _, d = derive_tiny(_first_less, {"hidden": 4, "layers": 6,
                                     "layer_types": ["slide", "slide", "full"] * 2}, "first")
    assert not d.failures, d.failures
    rng = random.Random(7)
    for n, full in [(5, 5), (5, 2), (1, 1), (9, 0)] + [(m := rng.randint(1, 30),
                                                          rng.randint(0, m)) for _ in range(4)]:
        h = rng.randint(1, 40)
        kinds = layers.write({"layers": n, "n_layer_types_full": full},
                             layers.find({"layers": 6, "layer_types": ["slide", "full"] * 3}),
                             {})["layer_types"]
        hand = n * h * h + sum(3 * h if k == "full" else h for k in kinds[1:])
        assert d.count({"hidden": h, "layers": n, "n_layer_types_full": full})["trainable"] \
            == hand, (n, full)


def test_a_lists_count_is_drawn_in_the_base_order_among_the_layer_counts():
    """Zamba 2's shared blocks (num_mem_blocks, 1 at the base) at most its hybrid layers (9 of
    54): the chain of layer counts states blocks <= hybrid <= layers, and the draws keep it
    (above it, min(hybrid, blocks) blocks are distinct, no polynomial)."""
    from types import SimpleNamespace

    from paramcount.analyze.derive.sampling import sample

    spec = layers.Spec("types", "layers", ("hybrid", "mamba"))
    d = SimpleNamespace(fields={"blocks": 1, "n_types_hybrid": 9, "layers": 54}, explicit={},
                        flags=())
    rng = random.Random(2)
    points = [sample(rng, d, ["blocks", "layers"], [], True, False, lists=[spec])
              for _ in range(60)]
    assert all(q["blocks"] <= q["n_types_hybrid"] <= q["layers"] for q in points)
    assert len({q["n_types_hybrid"] for q in points}) > 3


def test_a_count_at_most_another_divided_by_it_is_said_as_their_equality():
    """n // L with n ≤ L is [n = L] (L > 0): fitted as the indicator, which the prover splits
    (n = L, n ≠ L), not as a floor it cannot split once L = n + L'."""
    from paramcount.analyze.derive import fit

    rng = random.Random(3)
    samples = []
    for _ in range(40):
        L = rng.randint(1, 12)
        n = rng.choice([L, rng.randint(0, L)])
        samples.append(({"n": n, "L": L, "h": rng.randint(1, 9)}, n - (n == L)))
    poly = fit.fit(["L", "n"], ["L", "n", "h"], samples)
    assert poly is not None
    assert {a for _, m in poly for a in m if isinstance(a, tuple)} == {("eq", "n", "L")}, poly
    assert all(fit.evaluate(poly, p) == y for p, y in samples)
