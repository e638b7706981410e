"""Derived sizes that round (issue 19 §1, "a size that is no such expression"): a two-thirds
fraction of a field rounded up to a multiple of another (LFM2's feed-forward width), an integer
square root (Doge's product-key router), and these nested atoms through the JSON store and the
SymPy tree; each on exact fits or a tiny torch builder whose answer is written by hand."""

from __future__ import annotations

import random

import pytest

from paramcount.analyze.derive import fit
from tests._shared import derive_tiny, torch_side


def _lfm2_width(inter: int, multiple: int, adjust: int) -> int:
    """LFM2's MLP: int(2·I/3), rounded up to a multiple of block_multiple_of, where adjusted."""
    if not adjust:
        return inter
    w = int(2 * inter / 3)
    return multiple * ((w + multiple - 1) // multiple)


def test_fit_finds_two_thirds_rounded_up_to_a_multiple():
    rng = random.Random(11)
    samples = []
    for _ in range(80):
        p = {"inter": rng.randint(1, 200), "multiple": rng.randint(1, 40),
             "adjust": rng.randint(0, 1), "hidden": rng.randint(1, 64)}
        samples.append((p, _lfm2_width(p["inter"], p["multiple"], p["adjust"])))
    poly = fit.fit(["adjust", "hidden", "inter", "multiple"], ["hidden", "inter", "multiple"],
                   samples)
    assert poly is not None
    up = ("ceil", ("floor", "inter", "3/2"), "multiple")
    assert sorted(poly, key=str) == sorted(
        ((1, ("inter",)), (-1, ("adjust", "inter")), (1, ("adjust", "multiple", up))), key=str)
    assert all(fit.evaluate(poly, p) == y for p, y in samples)
    assert "ceil((inter // 3/2) / multiple)" in fit.poly_text(poly)


def test_fit_finds_an_integer_square_root():
    samples = [({"experts": e, "hidden": h}, 2 * int(e ** 0.5))
               for e, h in ((1, 8), (4, 16), (5, 8), (9, 32), (15, 4), (16, 8), (30, 64), (64, 2),
                            (2, 9), (99, 3), (120, 7), (121, 12), (3, 5), (50, 50), (8, 1))]
    poly = fit.fit(["experts"], ["experts", "hidden"], samples)
    assert poly == ((2, (("isqrt", "experts", "2"),)),)


def test_nested_atoms_survive_the_store_and_become_sympy():
    import sympy

    from paramcount.analyze.derive.core import Derivation, Template
    from paramcount.analyze.derive.store import from_json, to_json
    from paramcount.analyze.derive.tree import expr, field_symbols

    up = ("ceil", ("floor", "intermediate_size", "3/2"), "block_multiple_of")
    poly = ((1, ("block_multiple_of", up)),)
    d = Derivation("tiny_round", "Tiny", {}, {"intermediate_size": 96, "block_multiple_of": 16,
                                              "hidden_size": 8}, (), ())
    d.templates = [Template("w1.weight", "trainable", ((1, ()),),
                            (poly, ((1, ("hidden_size",)),)))]
    back = from_json(to_json(d))
    assert back.templates[0].dims[0] == poly
    syms = field_symbols(back)
    i, m = syms["intermediate_size"], syms["block_multiple_of"]
    assert expr(poly, syms) == m * sympy.ceiling(sympy.floor(2 * i / 3) / m)
    assert back.count({"intermediate_size": 100, "block_multiple_of": 16})["trainable"] == \
        _lfm2_width(100, 16, 1) * 8 == 80 * 8


# --- a tiny torch builder with a hand-written answer -------------------------------------------


def _builder(cfg):
    from torch import nn

    h, inter, m, e = (cfg[x] for x in ("hidden", "inter", "multiple", "experts"))

    class Tiny(nn.Module):
        def __init__(self):
            super().__init__()
            self.w1 = nn.Linear(h, _lfm2_width(inter, m, cfg["adjust"]), bias=False)
            self.router = nn.Linear(h, 2 * int(e ** 0.5), bias=False)  # math.floor(math.sqrt)

    return Tiny()


DEFAULTS = {"hidden": 32, "inter": 192, "multiple": 16, "experts": 64, "adjust": True}


def _hand(p):
    return p["hidden"] * (_lfm2_width(p["inter"], p["multiple"], p["adjust"])
                          + 2 * int(p["experts"] ** 0.5))


def _tiny():
    return derive_tiny(_builder, DEFAULTS, "tiny_round")[1]


@torch_side
def test_rounded_widths_fit_the_hand_written_count():
    d = _tiny()
    assert not d.failures, d.failures
    assert set(d.fields) == {"hidden", "inter", "multiple", "experts", "adjust"}
    rng = random.Random(9)
    for _ in range(8):
        p = {"hidden": rng.randint(1, 90), "inter": rng.randint(1, 5000),
             "multiple": rng.randint(1, 300), "experts": rng.randint(1, 3000),
             "adjust": rng.randint(0, 1)}
        assert d.count(p)["trainable"] == _hand(p), p


# --- a field the config rewrites after taking it -----------------------------------------------


def test_a_field_the_config_rewrites_takes_the_value_given():
    # BailingHybrid: the linear attention reads the head_dim given (128); the config then sets
    # head_dim to qk_rope_head_dim (64). The base point must be 128, as every build gives it.
    from paramcount.analyze.derive.given import given_back as _given_back
    from paramcount.analyze.derive.probe import Observed

    class Config:
        def __init__(self, head_dim: int = 128, qk_rope_head_dim: int = 64, layers: int = 2):
            self.linear_head_dim, self.head_dim = head_dim, qk_rope_head_dim
            self.layers = layers if layers >= 0 else 5

    class Run:
        def try_build(self, over):
            cfg = Config(**over)
            return {"conv1d.weight": Observed(1, (3 * cfg.linear_head_dim, 1, 4), "trainable")}

    class Src:
        def __init__(self):
            self.base: dict = {}

    base = Run().try_build({})
    full = {"head_dim": 64, "qk_rope_head_dim": 64, "layers": 2}
    explicit = dict(full)
    _given_back(Run(), Src(), Config(), base, full, explicit)  # type: ignore[arg-type]
    assert explicit == full == {"head_dim": 128, "qk_rope_head_dim": 64, "layers": 2}
    # a value read back that builds the same model stays (ERNIE 4.5's moe_layer_end_index,
    # given -1, "to the last layer", read back as that layer)
    full = {"head_dim": 128, "qk_rope_head_dim": 64, "layers": 5}
    explicit = dict(full)
    _given_back(Run(), Src(), Config(layers=-1), base, full, explicit)  # type: ignore[arg-type]
    assert explicit == full == {"head_dim": 128, "qk_rope_head_dim": 64, "layers": 5}


def test_a_field_the_config_computes_from_a_layer_count_keeps_the_value_given():
    # ERNIE 4.5: moe_layer_end_index given -1 is read back as num_hidden_layers - 1. Read back
    # (27 at 28 layers), it would bound every build with more layers than the base; given (-1),
    # it follows them. It is then the config's rule, not a field varied.
    from paramcount.analyze.derive.given import follows, given_back
    from paramcount.analyze.derive.probe import Observed

    class Config:
        def __init__(self, num_hidden_layers: int = 4, end_index: int = -1, width: int = -1):
            self.num_hidden_layers = num_hidden_layers
            self.end_index = num_hidden_layers - 1 if end_index == -1 else end_index
            self.width = 8 if width == -1 else width  # a constant in place of -1: stays

    class Src:
        def __init__(self):
            self.base: dict = {}

        def config(self, over):
            return Config(**over)

        def values(self, cfg):
            return dict(vars(cfg))

    class Run:
        def try_build(self, over):
            cfg = Config(**over)
            n = min(cfg.num_hidden_layers, cfg.end_index + 1)
            return {"mlp.weight": Observed(n, (cfg.width, 2), "trainable")}

    full = {"num_hidden_layers": 4, "end_index": 3, "width": 8}
    explicit = dict(full)
    base = Run().try_build({})
    assert follows(Src(), explicit, "end_index", -1) == "num_hidden_layers"  # type: ignore[arg-type]
    assert follows(Src(), explicit, "width", -1) == ""  # type: ignore[arg-type]
    ruled = given_back(Run(), Src(), Config(), base, full, explicit)  # type: ignore[arg-type]
    assert explicit == full == {"num_hidden_layers": 4, "end_index": -1, "width": 8}
    assert list(ruled) == ["end_index"] and "num_hidden_layers" in ruled["end_index"]
    # the builds now follow the layers: 6 layers, 6 weights (read back, 3 would bound them)
    assert Run().try_build({**explicit, "num_hidden_layers": 6})["mlp.weight"].count == 6


def test_fit_finds_half_a_quotient_rounded_up():
    # ESM's rotary inv_freq: torch.arange(0, hidden // heads, 2) holds ⌈(hidden // heads) / 2⌉
    rng = random.Random(13)
    samples = []
    for _ in range(40):
        p = {"hidden": rng.randint(1, 300), "heads": rng.randint(1, 12)}
        samples.append((p, len(range(0, p["hidden"] // p["heads"], 2))))
    poly = fit.fit(["heads", "hidden"], ["heads", "hidden"], samples)
    assert poly == ((1, (("ceil", ("floor", "hidden", "heads"), "2"),)),)


def test_fit_finds_a_part_absent_at_one_value():
    # BLT's token_embedding_projection: absent where encoder hidden·cross_attn_k equals the
    # global hidden (held at 1024 and 2048), i.e. at cross_attn_k = 2 only
    samples = [({"k": k, "vocab": v}, int(1024 * k != 2048))
               for k, v in ((2, 260), (1, 16), (3, 40), (4, 8), (6, 12), (1, 9), (5, 64), (8, 2))]
    poly = fit.fit(["k"], ["k", "vocab"], samples)
    assert poly is not None and sorted(poly, key=str) == sorted(
        ((1, ()), (-1, (("eq", "k", "2"),))), key=str)


def _hidden_divisor(cfg):
    import torch
    from torch import nn

    h, heads = cfg["hidden"], cfg["heads"]

    class Tiny(nn.Module):
        def __init__(self):
            super().__init__()
            # heads·(hidden // heads): hidden at 8, 16 and 9 heads of 288, the probes' variations
            self.q = nn.Linear(h, heads * (h // heads), bias=False)
            self.register_buffer("inv_freq", torch.ones(h // heads))  # heads is a field here

    return Tiny()


@torch_side
def test_a_divisor_the_probes_missed_is_tried_beside_the_fields():
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source

    d = derive(Source(builder=_hidden_divisor, defaults={"hidden": 288, "heads": 8},
                      model_type="tiny_divisor"))
    assert not d.failures, d.failures
    for h, heads in ((100, 7), (288, 8), (50, 3), (13, 13), (97, 5)):
        assert d.count({"hidden": h, "heads": heads}) == {
            "trainable": h * heads * (h // heads), "frozen": 0, "buffer": h // heads}


def test_layer_kinds_that_do_not_part_the_shapes_give_way_to_the_shapes():
    # GOT-OCR2: the vision tower's rel_pos_h is wider in its global layers (2, 5) than in its
    # windowed ones; the text config's layer_types (all "full_attention") are no kinds of it
    from paramcount.analyze.derive.observing import _split

    items = [(f"vision.layers.{i}.attn.rel_pos_h", (27 if i in (2, 5) else 13, 8), "trainable")
             for i in range(6)]
    out = _split("vision.layers.*.attn.rel_pos_h", items, ["full_attention"] * 8)
    assert {k: [s for _, s, _ in v] for k, v in out.items()} == {
        "vision.layers.*.attn.rel_pos_h@1": [(13, 8)] * 4,
        "vision.layers.*.attn.rel_pos_h@2": [(27, 8)] * 2}


def _tied_equal(cfg):
    from torch import nn

    class Tiny(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(260, 16)  # the encoder's own vocabulary, fixed
            self.head = nn.Linear(16, cfg["vocab"], bias=False)
            if cfg["tie"]:  # the head's weight in its place: vocab rows, 260 at the base
                self.embed.weight = self.head.weight

    return Tiny()


@torch_side
def test_a_flag_that_swaps_in_an_equal_width_is_found():
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source

    d = derive(Source(builder=_tied_equal, defaults={"vocab": 260, "tie": False},
                      model_type="tiny_tied_equal"))
    assert not d.failures, d.failures
    for v, tie in ((260, 0), (100, 0), (100, 1), (7, 1), (500, 0)):
        assert d.count({"vocab": v, "tie": tie})["trainable"] == 16 * v + (0 if tie else 16 * 260)


def _float_width(cfg):
    from torch import nn

    class Tiny(nn.Module):
        def __init__(self):
            super().__init__()  # a width computed in floating point, as xLSTM's up_proj_dim
            self.up = nn.Linear(cfg["hidden"], int(cfg["hidden"] * cfg["factor"]), bias=False)

    return Tiny()


@torch_side
def test_a_width_computed_in_floating_point_names_its_float_field():
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source

    d = derive(Source(builder=_float_width, defaults={"hidden": 40, "factor": 1.7, "eps": 1e-5},
                      model_type="tiny_float"))
    assert [t for t, _ in d.failures] == ["up.weight"]
    assert d.failures[0][1].endswith("; it reads the float field factor = 1.7, which no exact "
                                     "expression of the integer fields gives"), d.failures


# --- the transformers model types these sizes are for, at draws off their multiples ------------
_DRAWS = {  # the fields each draw sets (the rest at the defaults; two layers keep builds quick)
    "lfm2": lambda r: {"intermediate_size": r.randint(100, 9000),
                       "block_multiple_of": r.randint(1, 300),
                       "block_auto_adjust_ff_dim": bool(r.randint(0, 1)),
                       "hidden_size": 64 * r.randint(1, 4), "num_hidden_layers": 2},
    "doge": lambda r: {"num_experts": r.randint(1, 5000), "is_moe": True,
                       "hidden_size": 64 * r.randint(1, 4), "num_hidden_layers": 2},
}


@pytest.mark.slow
@pytest.mark.parametrize("model_type", sorted(_DRAWS))
@torch_side
def test_rounded_model_types_match_their_builds(model_type):
    # also proven now (⌈x / b⌉ of a field b and ⌊√E⌋ split: tests/test_prove_roundings.py);
    # these draws check the derived count against builds off the multiples
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source
    from tests.test_derive import _meta_count

    src = Source(model_type=model_type)
    d = derive(src)
    assert not d.failures, d.failures
    rng = random.Random(model_type)
    for _ in range(4):
        p = {**d.explicit, **_DRAWS[model_type](rng)}
        values = {k: int(v) for k, v in p.items() if k in d.fields}
        assert d.count(values)["trainable"] == _meta_count(src, p), values


@torch_side
def test_a_template_split_after_the_base_build_is_split_at_the_base_too():
    # BailingHybrid's o_proj: as wide in its linear-attention layers as in its full ones at the
    # base (heads·head_dim = heads·v_head_dim), so split by layer kind only from a later build;
    # the base, observed unsplit, named weights no split template had
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source
    from tests.test_derive_sweep import _kinds_builder

    d = derive(Source(builder=_kinds_builder, model_type="kinds_equal",
                      defaults={"layers": 9, "every": 3, "head_dim": 8, "global_head_dim": 8}))
    assert not d.failures, d.failures
    for L, k, h, g in ((9, 3, 8, 8), (10, 4, 5, 12), (7, 2, 16, 3)):
        full = L // k
        assert d.count({"layers": L, "every": k, "head_dim": h, "global_head_dim": g})[
            "trainable"] == 2 * (full * g + (L - full) * h)
