"""A width that is a product of two fields divided by a third (issue 32): Zamba's Mamba head
width, mamba_expand·hidden_size // n_mamba_heads, where the config requires the product, not
either factor, to be a multiple of the heads. Fitted exactly, its divisibility recorded from
the refusals, and proven; on exact samples and a tiny torch builder written by hand."""

from __future__ import annotations

import random

import pytest

from paramcount.analyze.derive import fit
from tests._shared import derive_tiny, torch_side


def test_fit_finds_a_product_divided_by_a_field():
    rng = random.Random(4)
    samples = []
    while len(samples) < 60:
        p = {"expand": rng.randint(1, 6), "hidden": rng.randint(1, 60),
             "heads": rng.randint(1, 8), "layers": rng.randint(0, 9)}
        if p["expand"] * p["hidden"] % p["heads"] == 0:
            samples.append((p, p["expand"] * p["hidden"] // p["heads"]))
    poly = fit.fit(["expand", "heads", "hidden"], ["expand", "heads", "hidden", "layers"],
                   samples)
    assert poly == ((1, (("floor", ("times", "expand", "hidden"), "heads"),)),)
    assert fit.poly_text(poly) == "(expand·hidden // heads)"
    assert fit.atom_value(poly[0][1][0], {"expand": 3, "hidden": 10, "heads": 4}) == 7


def _stacked(layer, n: int):
    """A toy model of ``n`` layers ``layer()`` under ``layers``, as a causal LM stacks them."""
    from torch import nn

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList(layer() for _ in range(n))

    return Model()


def _mamba(cfg):
    """Zamba's multi-head Mamba: the inner width expand·hidden split into heads."""
    import torch
    from torch import nn

    h, e, m, n = cfg["hidden"], cfg["expand"], cfg["heads"], cfg["layers"]
    if e * h % m:
        raise ValueError("expand·hidden must be divisible by heads")

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.in_proj = nn.Linear(h, 2 * e * h, bias=False)
            self.D = nn.Parameter(torch.ones(m, e * h // m))

    return _stacked(Layer, n)


MAMBA = {"hidden": 12, "expand": 2, "heads": 8, "layers": 2}


@torch_side
def test_a_product_divided_by_a_field_derives_with_its_divisibility_and_proves():
    src, d = derive_tiny(_mamba, MAMBA, "product")
    assert not d.failures, d.failures
    assert ("divides", "expand*hidden", "heads") in d.constraints
    for h, e, m, n in ((10, 3, 6, 4), (7, 4, 2, 1)):
        p = {"hidden": h, "expand": e, "heads": m, "layers": n}
        assert d.count(p)["trainable"] == n * (2 * e * h * h + m * (e * h // m)), p
    from paramcount.analyze.derive.proof import prove_derivation
    from paramcount.analyze.derive.store import from_json, to_json

    assert from_json(to_json(d)).constraints == d.constraints
    proof = prove_derivation(d, src)
    assert [c.status for c in proof.cases] == ["proven"] * len(proof.cases), proof.cases


def test_fit_finds_a_sum_of_squared_ceilings_as_a_quotient_and_its_square():
    """Zamba 2's untied shared blocks: block b of M holds an adapter for each of the H hybrid
    layers ≡ b (mod M), and is itself in that many layers: Σ_b ⌈(H − b) / M⌉² adapters, which
    is M·q² + (H − M·q)·(2q + 1), q = H // M; tied (t = 1), the M blocks hold H."""
    rng = random.Random(1)
    samples = []
    for _ in range(80):
        m = rng.randint(1, 5)
        h, t = rng.randint(m, 20), rng.randint(0, 1)
        y = h if t else sum((-(-(h - b) // m)) ** 2 for b in range(m))
        samples.append(({"H": h, "M": m, "t": t, "L": h + rng.randint(0, 5)}, y))
    poly = fit.fit(["H", "L", "M", "t"], ["H", "L", "M"], samples)
    assert poly is not None
    assert ("pow", ("floor", "H", "M"), "2") in {a for _, m in poly for a in m}
    assert all(fit.evaluate(poly, p) == y for p, y in samples)



@torch_side
@pytest.mark.slow
def test_heads_that_change_no_weight_still_divide_the_width_beside_product_candidates():
    """A product of two fields is asked to divide by a field that changes weights only: by one
    that changes none (held at its base value, as Whisper's heads are) it stood beside the
    heads' own divisibility, no build broke that one alone, the constraints read
    'mask_time_min_masks divides d_model; 2 divides d_model', and Whisper's and PLBart's
    proofs drew widths their heads do not divide (about a minute: a real derivation)."""
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source

    d = derive(Source(model_type="whisper"))
    assert ("divides", "d_model", "decoder_attention_heads") in d.constraints, d.constraints


def _grouped(cfg):
    """DeepSeek V4's grouped output projection: the heads' width heads·head_dim split into
    groups, each group's share floor(heads·head_dim / groups) wide, and no build refusing a
    share that does not divide (only a forward pass would)."""
    from torch import nn

    h, k, g, n = cfg["heads"], cfg["head_dim"], cfg["groups"], cfg["layers"]

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.q_proj = nn.Linear(2, h * k, bias=False)
            self.o_a_proj = nn.Linear(h * k // g, g * 3, bias=False)

    return _stacked(Layer, n)


GROUPED = {"heads": 4, "head_dim": 6, "groups": 8, "layers": 2}


@torch_side
def test_a_product_floored_by_a_field_no_build_refuses_proves_by_its_own_subcases():
    """floor(heads·head_dim / groups) with no divisibility: no parameter of the product has a
    constant coefficient, so the prover's split (a parameter eliminated) finds none; derive
    splits it itself, groups | heads·head_dim (heads = groups·heads') or not (heads and
    head_dim written groups·q + r, the remainders' product below groups), and proves both."""
    src, d = derive_tiny(_grouped, GROUPED, "grouped")
    assert not d.failures, d.failures
    assert not [c for c in d.constraints if c[0] == "divides"], d.constraints
    for h, k, g, n in ((3, 5, 4, 2), (4, 6, 8, 1)):
        p = {"heads": h, "head_dim": k, "groups": g, "layers": n}
        assert d.count(p)["trainable"] == n * (2 * h * k + 3 * g * (h * k // g)), p
    from paramcount.analyze.derive.proof import prove_derivation

    proof = prove_derivation(d, src)
    assert len(proof.cases) == 2, proof.cases
    assert [c.status for c in proof.cases] == ["proven"] * 2, proof.cases
    assert "groups divides" in proof.cases[0].case, proof.cases[0].case
    assert "does not divide" in proof.cases[1].case, proof.cases[1].case


def test_fit_finds_a_multiple_of_a_field_divided_by_another():
    """Zamba 2's query width: heads·(2·hidden // heads), no divisibility keeping it whole."""
    rng = random.Random(2)
    samples = []
    for _ in range(60):
        p = {"hidden": rng.randint(1, 60), "heads": rng.randint(1, 12)}
        samples.append((p, p["heads"] * (2 * p["hidden"] // p["heads"])))
    poly = fit.fit(["heads", "hidden"], ["heads", "hidden"], samples)
    assert poly is not None
    assert ("floor", ("times", "hidden", "2"), "heads") in {a for _, m in poly for a in m}
    assert all(fit.evaluate(poly, p) == y for p, y in samples)


def test_fit_finds_a_flag_times_a_count_of_degree_three():
    """Zamba 2's attention adapters: use_shared_attention_adapter (u) times the adapters of
    the shared blocks, tied (t) or not, a count of degree three in H, M, t and q = H // M, so
    degree four in all; 0 wherever u is unset."""
    rng = random.Random(3)
    samples = []
    for _ in range(100):  # hybrid layers up to 10, as a derivation draws them: q = H // M ≤ 10
        m = rng.randint(1, 5)
        h, t, u = rng.randint(m, 10), rng.randint(0, 1), rng.randint(0, 1)
        y = h if t else sum((-(-(h - b) // m)) ** 2 for b in range(m))
        samples.append(({"H": h, "M": m, "t": t, "u": u}, u * y))
    poly = fit.fit(["H", "M", "t", "u"], ["H", "M"], samples)
    assert poly is not None
    assert all("u" in m for _, m in poly)
    assert ("pow", ("floor", "H", "M"), "2") in {a for _, m in poly for a in m}  # not ⌈q / 2⌉
    assert all(fit.evaluate(poly, p) == y for p, y in samples)


def test_a_flag_times_a_count_is_fitted_first_without_a_flag_it_does_not_read():
    """Half the samples hold the flag: with another flag that changes nothing (b) beside the
    count's fields there are more monomials than those samples determine at degree three, and
    a chance fit of the few small quotients drawn (⌈q / 2⌉ for q²) came first."""
    rng = random.Random(2)
    samples = []
    for _ in range(90):
        m = rng.randint(1, 4)
        h, t, u, b = rng.randint(m, 8), rng.randint(0, 1), rng.randint(0, 1), rng.randint(0, 1)
        samples.append(({"H": h, "M": m, "t": t, "u": u, "b": b}, u * _blocks(h, m, t)))
    poly = fit.fit(["H", "M", "b", "t", "u"], ["H", "M"], samples)
    assert poly is not None
    assert all(fit.evaluate(poly, {"H": h, "M": m, "t": t, "u": 1, "b": 0}) == _blocks(h, m, t)
               for h in range(1, 30) for m in range(1, h + 1) for t in (0, 1))


def _blocks(h: int, m: int, t: int) -> int:
    """Zamba 2's adapters: h tied (t), else Σ_b ⌈(h − b) / m⌉² over the m untied blocks."""
    return h if t else sum((-(-(h - b) // m)) ** 2 for b in range(m))


def _interval(cfg):
    """ERNIE 4.5 MoE's layer pattern: layer i holds experts where i + 1 is a multiple of the
    interval and i is at least the start index, a dense feed-forward block elsewhere: the
    experts' layers number floor(layers / interval) − floor(start / interval)."""
    from torch import nn

    h, e, k, s, n = cfg["hidden"], cfg["experts"], cfg["interval"], cfg["start"], cfg["layers"]

    def layer(i):
        def make():
            m = nn.Module()
            if (i + 1) % k == 0 and i >= s:
                m.experts = nn.Linear(h, e, bias=False)
            else:
                m.dense = nn.Linear(h, 3, bias=False)
            return m
        return make

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList(layer(i)() for i in range(n))

    return Model()


INTERVAL = {"hidden": 6, "experts": 4, "interval": 2, "start": 3, "layers": 7}


@torch_side
def test_two_floors_by_one_divisor_prove_by_derive_s_own_subcases():
    """floor(layers / interval) − floor(start / interval), start ≤ layers: the prover splits
    the first floor, then writes layers over the quotient of the second by a sub-region whose
    quotients grow with the first's (ERNIE 4.5 MoE built models of some 500 layers, 26,496
    builds over 32 cases: past an hour). Derive writes both floors' remainders itself, start =
    interval·a + r_s, layers = interval·(a + b) + r_l, in four sub-cases (each remainder 0 or
    not), and the largest layer count a proof builds stays small."""
    src, d = derive_tiny(_interval, INTERVAL, "interval")
    assert not d.failures, d.failures
    for h, e, k, s, n in ((5, 3, 3, 2, 11), (4, 7, 1, 0, 6), (2, 2, 4, 5, 5)):
        p = {"hidden": h, "experts": e, "interval": k, "start": s, "layers": n}
        moe = n // k - s // k
        assert d.count(p)["trainable"] == moe * h * e + (n - moe) * 3 * h, p
    from paramcount.analyze.derive.proof import derived_architecture, prove_derivation
    from paramcount.analyze.derive.subcases import subcases

    labels = [label for label, _, _ in subcases(derived_architecture(d, src))]
    assert labels == ["interval divides start, interval divides layers",
                      "interval divides start, interval does not divide layers",
                      "interval does not divide start, interval divides layers",
                      "interval does not divide start, interval does not divide layers"], labels
    proof = prove_derivation(d, src)
    assert [c.status for c in proof.cases] == ["proven"] * 4, proof.cases
    assert sum(c.builds for c in proof.cases) < 2000, [c.builds for c in proof.cases]


def _shared(cfg):
    """Cohere 2 MoE's shared experts: a module only where the count is not 0."""
    from torch import nn

    h, s, n = cfg["hidden"], cfg["n_shared"], cfg["layers"]

    def layer():
        m = nn.Module()
        m.proj = nn.Linear(h, h, bias=False)
        if s:
            m.shared = nn.Linear(h, 2 * s, bias=False)
        return m

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList(layer() for _ in range(n))

    return Model()


@torch_side
def test_a_field_s_kind_is_its_own_derivation_s_whatever_was_derived_before():
    """A field's symbol is declared by the derivation that reads it: positive where its base
    value is, a count that may be 0 where it is 0. The first declaration of a name held for the
    process, so a sweep worker that had derived a type with 2 shared experts proved Cohere 2
    MoE (0 shared experts) with a positive symbol: KroneckerDelta(0, shared) was 0 before any
    case was drawn, and 4 cases were "proven" where a fresh process proves 8 (shared = 0 and
    not, at each flag)."""
    from paramcount.analyze.derive.proof import derived_architecture
    from paramcount.analyze.prove import cases
    from paramcount.core import symbols

    src2, d2 = derive_tiny(_shared, {"hidden": 4, "n_shared": 2, "layers": 2}, "shared-two")
    derived_architecture(d2, src2)  # declares n_shared: positive (its base is 2)
    assert not symbols.info("n_shared").zero_ok, "declared positive first"
    src0, d0 = derive_tiny(_shared, {"hidden": 4, "n_shared": 0, "layers": 2}, "shared-none")
    arch = derived_architecture(d0, src0)
    assert symbols.info("n_shared").zero_ok, "the later derivation's kind"
    labels = [c.label for c in cases(arch)]
    assert any("0 = n_shared" in x for x in labels) and any("0 ≠ n_shared" in x for x in labels), \
        labels


def _shared_blocks(cfg):
    """Zamba 2's shared blocks: tied, ``blocks`` of them serve the layers in turn, so only
    min(blocks, layers) are built; untied, each layer keeps its own, and ⌊layers / blocks⌋
    adapters stand beside them (a floor of the two, whatever their order)."""
    from torch import nn

    h, b, n, tie = cfg["hidden"], cfg["blocks"], cfg["layers"], cfg["tie"]

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(h, 3, bias=False)
            if tie:
                self.shared = nn.ModuleList(nn.Linear(h, h, bias=False) for _ in range(min(b, n)))
            else:
                self.own = nn.ModuleList(nn.Linear(h, h, bias=False) for _ in range(n))
                self.adapters = nn.ModuleList(nn.Linear(h, 1, bias=False) for _ in range(n // b))

    return Model()


@torch_side
def test_an_order_of_the_domain_binds_every_case_not_only_those_a_floor_of_it_splits():
    """blocks ≤ layers is the formula's domain (tied, min(blocks, layers) blocks are built).
    The order was left out of the derived architecture wherever a floor ⌊layers / blocks⌋ stood
    in the formula, as that floor's split keeps its quotient at least 1; but the floor stands
    only in the untied cases, so the tied ones were proven over every order of the two and
    refuted (Zamba 2: 8 of its 24 cases, at blocks = 35,948 over 1 hybrid layer)."""
    from paramcount.analyze.derive.proof import derived_architecture, prove_derivation
    from paramcount.core.hparams import Relation

    src, d = derive_tiny(_shared_blocks, {"hidden": 4, "blocks": 2, "layers": 5, "tie": True},
                         "shared-blocks")
    assert not d.failures, d.failures
    assert ("<=", "blocks", "layers") in d.domain, (d.domain, d.constraints)
    arch = derived_architecture(d, src)
    orders = [(str(c.lhs), str(c.rhs), str(c.when)) for c in arch.constraints
              if isinstance(c, Relation)]
    assert orders == [("blocks", "layers", "tie")], arch.constraints  # where the floor is not
    proof = prove_derivation(d, src)
    assert {c.status for c in proof.cases} == {"proven"}, [(c.case, c.status) for c in proof.cases]
