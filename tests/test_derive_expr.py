"""Richer derived expressions (issue 19 §1): a floor the samples cannot tell from a fraction (and
the build that tells them apart), a width seen in few builds, a square, half a product, a flag
that reshapes a weight, a width that must keep a divisibility probed on a template the base
config lacks, a frozen weight beside trained ones; each on a fit or a tiny torch builder whose
answer is written by hand."""

from __future__ import annotations

import random

import pytest

from paramcount.analyze.derive import fit
from paramcount.analyze.derive.linsolve import solve
from tests._shared import derive_tiny, torch_side

# --- exact fits (no torch) ----------------------------------------------------------------------


def test_fit_prefers_a_floor_to_a_fraction():
    # every sampled ffn_dim even: ffn_dim // 2 and ffn_dim / 2 agree on the samples, and only
    # the floor has integer coefficients (Moshi's fc2 input)
    samples = [({"ffn_dim": v}, v // 2) for v in (32, 64, 128, 144, 72, 96, 16, 48, 8, 24, 12)]
    poly = fit.fit(["ffn_dim"], ["ffn_dim"], samples)
    assert poly == ((1, (("floor", "ffn_dim", "2"),)),)


def test_fit_from_few_builds_lowers_the_degree():
    # a bias only half the builds have: 14 samples, fewer than the 15 monomials of degree 3 in
    # four atoms; kv·(hidden // heads) is of degree 2 (Granite MoE shared's k_proj bias)
    rng = random.Random(4)
    samples = []
    for _ in range(14):
        p = {"hidden": rng.choice((12, 32, 48, 64, 35, 6)), "heads": rng.randint(1, 24),
             "kv": rng.randint(1, 24)}
        samples.append((p, p["kv"] * (p["hidden"] // p["heads"])))
    poly = fit.fit(["heads", "hidden", "kv"], ["heads", "hidden", "kv"], samples)
    assert poly == ((1, ("kv", ("floor", "hidden", "heads"))),)


def test_fit_finds_a_part_only_more_than_one_makes():
    # XLM's language embeddings: one table where n_langs > 1, none where it is 1
    samples = [({"n_langs": n, "emb": e}, int(n != 1)) for n, e in
               ((1, 32), (2, 32), (6, 128), (1, 16), (12, 144), (48, 48), (1, 64), (3, 8))]
    poly = fit.fit(["n_langs"], ["emb", "n_langs"], samples)
    assert poly is not None and sorted(poly, key=str) == sorted(
        ((1, ()), (-1, (("eq", "n_langs", "1"),))), key=str)


def test_fit_finds_a_square():
    # CPM-Ant's relative attention bias: segment_types² + buckets rows
    rng = random.Random(6)
    samples = []
    for _ in range(20):
        p = {"seg": rng.randint(1, 40), "buckets": rng.randint(1, 64)}
        samples.append((p, p["seg"] ** 2 + p["buckets"]))
    poly = fit.fit(["buckets", "seg"], ["buckets", "seg"], samples)
    assert poly is not None and sorted(poly, key=str) == sorted(
        ((1, ("buckets",)), (1, (("pow", "seg", "2"),))), key=str)
    assert fit.poly_text(poly) in ("buckets + seg^2", "seg^2 + buckets")


def test_fit_prefers_a_square_to_a_period_the_samples_cannot_tell_apart():
    # Gemma 3n's AltUp prediction_coefs, altup_num_inputs² rows, seen at 1 to 4 inputs only
    # (a layer count drawn below two others): a period of 3 interpolates four values with four
    # terms as exactly as the square does with one; the simpler is kept (its proof then holds)
    samples = [({"a": a, "h": h}, a * a) for a, h in
               ((1, 8), (2, 16), (3, 8), (4, 32), (2, 8), (4, 16), (1, 32), (3, 64))]
    assert fit.fit(["a"], ["a", "h"], samples) == ((1, (("pow", "a", "2"),)),)


def test_fit_finds_half_a_product():
    # Zaya's v_proj_current: (num_key_value_heads·head_dim) // 2, odd products included
    rng = random.Random(8)
    samples = []
    for _ in range(40):
        p = {"kv": rng.randint(1, 64), "hd": rng.randint(1, 300)}
        samples.append((p, p["kv"] * p["hd"] // 2))
    assert any(p["kv"] * p["hd"] % 2 for p, _ in samples)
    poly = fit.fit(["hd", "kv"], ["hd", "kv"], samples)
    assert poly is not None
    for kv in range(1, 12):  # exact beyond the samples
        for hd in range(1, 12):
            assert fit.evaluate(poly, {"kv": kv, "hd": hd}) == kv * hd // 2


def test_a_bias_fits_in_the_fields_its_weight_reads():
    # Falcon's query_key_value.bias: its probes ran with new_decoder_architecture on, so they
    # never saw multi_query; its weight's dimension did, and the bias fits in those fields
    from types import SimpleNamespace

    from paramcount.analyze.derive.templates import _fit

    def qkv(p):
        hd = p["hidden"] // p["heads"]
        if p["nda"]:
            return (p["heads"] + 2 * p["kv"]) * hd
        return p["hidden"] + 2 * hd if p["mq"] else 3 * p["hidden"]

    rng = random.Random(7)
    samples = []
    for _ in range(50):
        p = {"hidden": rng.choice((8, 24, 48, 64, 384, 36)), "heads": rng.choice((2, 4, 6, 8, 12)),
             "kv": rng.choice((2, 4, 12, 16, 32)), "layers": rng.randint(1, 10),
             **{f: rng.randint(0, 1) for f in ("bias", "mq", "nda", "par", "tie")}}
        samples.append((p, qkv(p)))
    fields = {f: 1 for f in ("hidden", "heads", "kv", "layers", "bias", "mq", "nda", "par", "tie")}
    d = SimpleNamespace(fields=fields, flags=("bias", "mq", "nda", "par", "tie"))
    first, wider = {"hidden", "heads", "kv"}, ["bias", "heads", "hidden", "kv", "layers"]
    assert _fit(first, wider, d, samples) is None  # its own fields, then all nine: no fit
    poly = _fit(first, wider, d, samples, {"hidden", "heads", "kv", "mq", "nda"})
    assert poly is not None and all(fit.evaluate(poly, p) == y for p, y in samples)


def test_a_count_two_flags_decide_fits_in_its_fields_and_the_flags():
    # DeBERTa's legacy LM head decoder: there only where legacy is on and the head is untied,
    # legacy·(1 − tie); the probes (at tie = 1) saw tie alone, and its template's fields with
    # every flag are more monomials than a few dozen builds determine
    from types import SimpleNamespace

    from paramcount.analyze.derive.templates import _fit

    rng = random.Random(3)
    flags = ("legacy", "pbi", "rel", "tie")
    samples = []
    for _ in range(29):
        p = {"hidden": rng.choice((12, 24, 36, 48)), "layers": rng.randint(1, 10),
             "vocab": rng.choice((2, 4, 8, 12, 16, 32)), **{f: rng.randint(0, 1) for f in flags}}
        samples.append((p, p["legacy"] * (1 - p["tie"])))
    d = SimpleNamespace(fields={"hidden": 768, "layers": 12, "vocab": 50265,
                                **dict.fromkeys(flags, 1)}, flags=flags)
    poly = _fit({"tie"}, ["hidden", "layers", "tie", "vocab"], d, samples)
    assert poly is not None and sorted(poly, key=str) == sorted(
        ((1, ("legacy",)), (-1, ("legacy", "tie"))), key=str)


# --- a tiny torch builder with a hand-written answer -------------------------------------------


def _builder(cfg):
    from torch import nn

    h, heads, kv, d, L, k = (cfg[x] for x in ("hidden", "heads", "kv", "head_dim", "layers",
                                               "dense_k"))
    if h % 8:  # a validator: the widths the model takes
        raise ValueError("hidden must be a multiple of 8")

    class Layer(nn.Module):
        def __init__(self, i):
            super().__init__()
            self.q = nn.Linear(h, heads * d, bias=False)
            # a flag that reshapes a weight: one gate per head, or one per head channel
            self.g = nn.Linear(h, heads if cfg["gating"] else heads * d, bias=False)
            # a bias only where the flag is on, of a floor's width
            self.k = nn.Linear(h, kv * (h // heads), bias=cfg["bias"])
            # half a product: even at every random build that keeps the base's divisibilities,
            # so a build off them tells (kv·head_dim) // 2 from kv·(head_dim // 2)
            self.v = nn.Linear(h, kv * d // 2, bias=False)
            if i < k:  # the first dense_k layers only: absent at the base (dense_k = 0)
                self.up = nn.Linear(h, cfg["ffn"], bias=False)

    class Tiny(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(cfg["vocab"], h)
            self.layers = nn.ModuleList(Layer(i) for i in range(L))

    return Tiny()


DEFAULTS = {"hidden": 64, "heads": 8, "kv": 4, "head_dim": 16, "layers": 6, "dense_k": 0,
            "ffn": 96, "vocab": 50, "gating": True, "bias": False}


def _hand(p):
    h, heads, kv, d, L, k = (p[x] for x in ("hidden", "heads", "kv", "head_dim", "layers",
                                             "dense_k"))
    gate = heads if p["gating"] else heads * d
    per_layer = h * heads * d + h * gate + (h + p["bias"]) * kv * (h // heads) + h * (kv * d // 2)
    return p["vocab"] * h + L * per_layer + min(k, L) * h * p["ffn"]


def _tiny():
    return derive_tiny(_builder, DEFAULTS, "tiny_expr")[1]


@torch_side
def test_reshaping_flag_and_absent_width_fit_the_hand_written_count():
    d = _tiny()
    assert not d.failures, d.failures
    assert {"head_dim", "hidden", "ffn", "dense_k", "gating", "bias"} <= set(d.fields)
    rng = random.Random(5)
    for _ in range(6):
        L = rng.randint(1, 12)
        p = {"hidden": 8 * rng.randint(1, 12), "heads": rng.randint(1, 9),
             "kv": rng.randint(1, 9), "head_dim": rng.randint(1, 40), "layers": L,
             "dense_k": rng.randint(0, L), "ffn": rng.randint(1, 200),
             "vocab": rng.randint(1, 300), "gating": rng.randint(0, 1),
             "bias": rng.randint(0, 1)}
        assert d.count(p)["trainable"] == _hand(p), p


def test_a_frozen_weight_beside_a_trainable_one_is_a_leaf_of_its_own():
    # Laguna's router: gate.weight trained, gate.e_score_correction_bias a frozen parameter;
    # one leaf of both took the first's role and left the trained weight unclaimed
    from paramcount.analyze.derive.core import Derivation, Template
    from paramcount.analyze.derive.tree import tree

    d = Derivation("tiny_frozen", "Tiny", {}, {"hidden_size": 8, "num_experts": 4,
                                               "num_hidden_layers": 2}, (), ())
    d.templates = [
        Template("layers.*.gate.e_score_correction_bias", "frozen", ((1, ("num_hidden_layers",)),),
                 (((1, ("num_experts",)),),)),
        Template("layers.*.gate.weight", "trainable", ((1, ("num_hidden_layers",)),),
                 (((1, ("num_experts",)),), ((1, ("hidden_size",)),))),
    ]
    t = tree(d)
    gate, frozen = t.find("layers.gate"), t.find("layers.gate_e_score_correction_bias")
    assert gate.trainable and not frozen.trainable
    assert "e_score" not in gate.match and "gate/weight" in gate.match.replace("\\", "")


def test_the_exact_solve_gives_the_integer_solution_or_none():
    """The coefficients are solved modulo a 61-bit prime and lifted to the integers nearest
    zero, each checked exactly on the rows it was solved from: an integer solution comes back
    as it is (free columns at zero, pivots in column order), a rational or inconsistent one
    as None (a fit keeps integer coefficients only)."""
    rng = random.Random(7)
    monos = fit._monomials(["a", "b", "c", "d", "e", "f"])
    want = [rng.randint(-50, 50) for _ in monos]
    points = [{k: rng.randint(0, 4000) for k in "abcdef"} for _ in range(len(monos) + 8)]
    rows = [[fit._mono_value(m, p) for m in monos] for p in points]
    ys = [sum(r * x for r, x in zip(row, want, strict=True)) for row in rows]
    assert solve(rows, ys) == want
    assert solve([[2]], [1]) is None  # x = 1/2
    assert solve([[1, 1], [1, 1]], [1, 2]) is None  # inconsistent
    assert solve([[1, 1], [2, 2]], [3, 6]) == [3, 0]  # a free column at zero
    assert solve([[1, 2], [3, 4]], [-(2**40) + 1, -3 * 2**40 + 5]) == [-(2**40) + 3, -1]


def test_a_floor_of_two_fields_never_above_one_is_told_from_an_equality():
    # every point has a ≤ b, so a // b is [a = b]: a build at a = 2·b tells them apart
    from paramcount.analyze.derive.templates import _undecided

    poly = ((1, ()), (-1, (("floor", "emb", "hidden"),)))
    points = [{"emb": e, "hidden": h} for e, h in ((32, 96), (48, 48), (8, 64))]
    assert _undecided(poly, points, set()) == ("emb", "hidden")
    assert _undecided(poly, points, {("emb", "hidden")}) is None
    assert _undecided(poly, [*points, {"emb": 100, "hidden": 48}], set()) is None


def _entity(cfg):
    from torch import nn

    if cfg["hidden"] % cfg["heads"]:
        raise ValueError("hidden must be a multiple of heads")

    class Entity(nn.Module):  # LUKE's entity embeddings: projected where emb ≠ hidden
        def __init__(self):
            super().__init__()
            self.table = nn.Embedding(cfg["entities"], cfg["emb"])
            if cfg["emb"] != cfg["hidden"]:
                self.dense = nn.Linear(cfg["emb"], cfg["hidden"], bias=False)
            self.out = nn.Linear(cfg["hidden"], cfg["hidden"])

    return Entity()


def test_fit_finds_a_part_absent_where_two_fields_are_equal():
    # LUKE's entity projection, absent where entity_emb_size = hidden_size: every sample kept
    # emb dividing hidden, as at the base, where 1 − ⌊emb / hidden⌋ fits too
    rng = random.Random(2)
    samples = []
    for _ in range(30):
        hidden = 12 * rng.randint(1, 16)
        emb = hidden // rng.choice([1, 1, 2, 3, 4])
        samples.append(({"emb": emb, "hidden": hidden}, int(emb != hidden)))
    poly = fit.fit(["emb", "hidden"], ["emb", "hidden"], samples)
    assert poly is not None and sorted(poly, key=str) == sorted(
        ((1, ()), (-1, (("eq", "emb", "hidden"),))), key=str)


@pytest.mark.slow
@torch_side
def test_a_part_absent_where_two_widths_are_equal_is_no_floor():
    # the base's emb divides its hidden, and the random builds kept that: every one had
    # emb ≤ hidden, where 1 − ⌊emb / hidden⌋ fits as well as 1 − [emb = hidden]
    _, d = derive_tiny(_entity, {"hidden": 96, "heads": 12, "emb": 32, "entities": 40},
                       "tiny_entity")
    assert not d.failures, d.failures
    for emb, hidden in ((32, 96), (96, 96), (200, 96), (97, 96), (12, 24)):
        p = {**d.fields, "emb": emb, "hidden": hidden}
        want = 40 * emb + emb * hidden * (emb != hidden) + hidden * hidden + hidden
        assert d.count(p)["trainable"] == want, (emb, hidden)


def test_a_dimension_no_expression_fits_is_refitted_off_the_multiples():
    # MobileBERT's heads·⌊width / heads⌋: most random builds keep heads dividing the widths; a
    # field dividing another at the base, one above, at up to twelve of them, builds off them
    from types import SimpleNamespace

    from paramcount.analyze.derive.templates import _off_multiples

    class Run:
        def __init__(self):
            self.asked = []

        def try_build(self, over):
            self.asked.append(dict(over))
            return {"q.weight": None}

    d = SimpleNamespace(fields={"heads": 4, "hidden": 512, "intra": 128, "flag": 1},
                        flags=("flag",), constraints=[])
    drawn = [{"heads": 4 * k, "hidden": 64 * k, "intra": 32 * k, "flag": k % 2}
             for k in range(1, 20)]
    samples: list = []
    run = Run()
    assert _off_multiples(run, d, "q.weight", ["flag", "heads", "hidden", "intra"], drawn,
                          samples, {})
    # heads and intra divide another at the base (hidden does not): twelve builds of each
    assert len(samples) == 24 and len(run.asked) == 24
    assert {p["heads"] for p, _ in samples[:12]} == {4 * k + 1 for k in range(1, 13)}
    assert all(p["hidden"] % p["heads"] for p, _ in samples[:12])
    assert all(type(o["flag"]) is bool for o in run.asked)


def test_a_multiplicity_is_positive_at_the_derived_config():
    """LaraMini's linear-attention layers: num_hidden_layers less the attention kinds' counts.
    The printed multiplicity was their negative (n_full + n_sliding − L, −14 at the config) and
    the body negative too: the product right, the line read wrong."""
    from paramcount.analyze.counting import component_label
    from paramcount.analyze.derive.core import Derivation, Template
    from paramcount.analyze.derive.tree import tree

    fields = {"hidden_size": 8, "num_hidden_layers": 34, "n_full": 7, "n_sliding": 13}
    d = Derivation("tiny_kinds", "Tiny", {}, fields, (), ())
    rest = ((1, ("num_hidden_layers",)), (-1, ("n_full",)), (-1, ("n_sliding",)))
    d.templates = [Template("layers.*.linear.weight", "trainable", rest,
                            (((1, ("hidden_size",)),), ((1, ("hidden_size",)),)))]
    layers = tree(d).find("layers")  # (SymPy's gcd gives the multiplicity as n_full + ... − L)
    values = {s: fields[s.name] for s in layers.times.free_symbols}
    assert layers.times.subs(values) == 14
    assert str(layers.find("linear").expr) == "hidden_size**2"
    assert component_label(layers) == "layers × (-n_full - n_sliding + num_hidden_layers)"
