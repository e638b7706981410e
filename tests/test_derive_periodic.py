"""Layer counts of a kind that recurs with a period (issue 32): exact floor and ceiling
expressions of the layer count, the period and the start or offset, fitted from counts; and
the real model types these and KV sharing (the last layers without keys and values) unlock;
and layer counts a validator insists are multiples of a field that changes no weight."""

import random

import pytest

from paramcount.analyze.derive import fit as fitting
from paramcount.analyze.derive.linsolve import solve
from tests._shared import torch_side


def _every(layers, period, start=0, offset=None):
    """How many i < layers, i ≥ start, have i + 1 ≡ 0 (mod period), or i ≡ offset."""
    want = period - 1 if offset is None else offset
    return sum(1 for i in range(start, layers) if i % period == want)


def test_from_a_start_is_two_floors():
    rng = random.Random(3)
    samples = []
    for _ in range(60):
        s = rng.randint(0, 8)
        L = rng.randint(s, 24)
        p, h = rng.randint(1, 6), rng.randint(1, 9)
        samples.append(({"L": L, "p": p, "s": s, "h": h}, _every(L, p, s)))
    poly = fitting.fit(["L", "p", "s"], ["L", "p", "s", "h"], samples)
    assert poly is not None
    assert {a for _, atoms in poly for a in atoms} == {("floor", "L", "p"), ("floor", "s", "p")}
    assert all(fitting.evaluate(poly, p) == y for p, y in samples)


@pytest.mark.parametrize("offset", [1, 2])
def test_an_offset_is_a_shifted_ceiling(offset):
    rng = random.Random(offset)
    samples = []
    for _ in range(60):
        p = rng.randint(offset + 1, 7)
        L = rng.randint(0, 30)
        samples.append(({"L": L, "p": p, "h": rng.randint(1, 9)}, _every(L, p, offset=offset)))
    poly = fitting.fit(["L", "p"], ["L", "p", "h"], samples)
    assert poly == ((1, (("ceil", ("minus", "L", str(offset)), "p"),)),)
    assert fitting.poly_text(poly) == f"ceil((L - {offset}) / p)"


# --- the real types these patterns unlock (issue 32): derived and proven, minutes each ---------


@pytest.mark.slow
@pytest.mark.parametrize(("model_type", "field"), [
    ("ernie4_5_moe", "moe_layer_start_index"),  # MoE every interval-th layer from a start
    ("flint", "n_mlp_only_layers"),  # sparse every step-th layer after the first dense ones
    ("gemma3n_text", "num_kv_shared_layers"),  # the last layers share keys and values
])
@torch_side
def test_derived_and_proven(model_type, field):
    from paramcount.analyze.derive import sweep

    row = sweep.one(model_type, "causal")
    assert row.status == "proven", row.reason
    assert field in row.fields


def test_a_layer_count_below_a_shrunk_one_is_scaled_with_it():
    from paramcount.analyze.derive import core
    from paramcount.analyze.derive.probe import Observed

    base = {"layers.*.q": Observed(35, (4,), "trainable"), "layers.*.k": Observed(20, (4,),
                                                                                 "trainable")}

    class Run:
        def try_build(self, at):
            return base

    values = {"num_hidden_layers": 35, "num_kv_shared_layers": 15, "hidden_size": 64}
    at = core._shrunk(Run(), base, values, list(values))
    assert at == {"num_hidden_layers": core.SHRINK, "num_kv_shared_layers": 15 * 12 // 35}


def test_a_width_a_flag_picks_is_two_floors_by_one_divisor():
    # MobileBERT's attention: heads of the bottleneck's width where use_bottleneck is set, of
    # hidden_size where not, each width floored by the heads (int(width / heads) per head)
    rng = random.Random(5)
    samples = []
    for _ in range(40):
        p = {"f": rng.randint(0, 1), "heads": rng.randint(1, 12), "hidden": rng.randint(1, 200),
             "intra": rng.randint(1, 200)}
        width = p["intra"] if p["f"] else p["hidden"]
        samples.append((p, p["heads"] * (width // p["heads"])))
    poly = fitting.fit(["f", "heads", "hidden", "intra"], ["heads", "hidden", "intra"], samples)
    assert poly is not None
    for f in (0, 1):  # exact beyond the samples, odd widths included
        for heads in (1, 3, 7):
            for hidden, intra in ((10, 23), (301, 5), (64, 64)):
                p = {"f": f, "heads": heads, "hidden": hidden, "intra": intra}
                assert fitting.evaluate(poly, p) == heads * ((intra if f else hidden) // heads)


def _stepped(cfg):
    """Switch Transformers' sparse layers: the config computes step = layers // sparse (layers
    where sparse is 0), and layer i carries the experts where i % step == 1, or every layer
    where step is 1: ⌈(layers − 1) / ⌊layers / sparse⌋⌉ of them, a step no field gives."""
    from torch import nn

    h, L, n = cfg["hidden"], cfg["layers"], cfg["sparse"]
    step = L // n if n > 0 else L

    class Layer(nn.Module):
        def __init__(self, sparse):
            super().__init__()
            self.attn = nn.Linear(h, h, bias=False)
            self.mlp = nn.Linear(h, 2 * h, bias=False) if sparse else nn.Linear(h, h, bias=False)

    return nn.ModuleList(Layer(step > 0 and (i % step == 1 or step == 1)) for i in range(L))


@torch_side
def test_a_count_no_expression_gives_names_every_field_it_was_fitted_in():
    """The sparse layers' count follows the layers too, though no probe of them saw it (12 → 24
    and 13 keep 3): the refusal names the layer count among the fields it was fitted in."""
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source

    d = derive(Source(builder=_stepped, defaults={"hidden": 8, "layers": 12, "sparse": 3},
                      model_type="stepped"))
    why = dict(d.failures).get("*.mlp.weight@2") or dict(d.failures).get("*.mlp.weight")
    assert why is not None, d.failures
    assert "how many weights" in why and "layers" in why and "sparse" in why, why


def test_rows_short_of_rank_at_the_head_are_solved_from_every_row():
    """Jamba's conv1d bias, in every Mamba layer where mamba_conv_bias is on: the flag zeroes
    the rows of every monomial it is in, and the first rows the solve reads may leave columns
    free; a solution with them at zero that a later row refutes is not the answer, every row
    is (x = 1, 2, 3 here, the first eleven rows reading the first column alone)."""
    rows = [[k, 0, 0] for k in range(1, 12)] + [[1, 1, 0], [0, 1, 1], [1, 0, 1], [2, 1, 1]]
    ys = [r[0] + 2 * r[1] + 3 * r[2] for r in rows]
    assert solve(rows, ys) == [1, 2, 3]
    assert solve(rows, [*ys[:-1], ys[-1] + 1]) is None  # inconsistent: none


def test_three_layer_counts_drawn_with_gaps_span_periods():
    """Three layer counts sorted in 0 to 10 leave the largest within a period of the next:
    drawn with gaps, some points have L mod period above the offset, where ⌈(L − offset) /
    period⌉ and ⌊L / period⌋ differ."""
    from types import SimpleNamespace

    from paramcount.analyze.derive.sampling import sample

    d = SimpleNamespace(fields={"o": 4, "p": 8, "L": 32}, explicit={}, flags=())
    rng = random.Random(1)
    points = [sample(rng, d, ["o", "p", "L"], [], True, False, gaps=True) for _ in range(40)]
    assert all(q["o"] <= q["p"] <= q["L"] for q in points)
    assert any(-(-(q["L"] - q["o"]) // q["p"]) != q["L"] // q["p"] for q in points if q["p"])


def _two_periods(cfg):
    """Jamba's stack: attention on the layers ≡ offset (mod attn_period), Mamba elsewhere, and
    experts on the layers ≡ 1 (mod expert_period), one MLP elsewhere: two periods, one count."""
    from torch import nn

    n, pa, oa, pe, h = (cfg[k] for k in ("layers", "attn_period", "attn_offset",
                                          "expert_period", "hidden"))
    if oa >= pa or pe < 2:
        raise ValueError("an offset must be below its period")

    class Layer(nn.Module):
        def __init__(self, i):
            super().__init__()
            if i % pa == oa:
                self.attn = nn.Linear(h, h, bias=False)
            else:
                self.mamba = nn.Linear(h, 2 * h, bias=False)
            self.experts = nn.Linear(h, 3 * h if i % pe == 1 else h, bias=False)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList(Layer(i) for i in range(n))

    return Model()


TWO = {"layers": 8, "attn_period": 4, "attn_offset": 2, "expert_period": 2, "hidden": 4}


@torch_side
def test_two_periods_over_one_layer_count_are_named_where_the_proof_stops():
    """Each count is a ceiling of the layer count by its own period; splitting the layer count
    by one period (L = p·q + r) leaves the other quotient's numerator no parameter with a
    constant coefficient. The proof's reason says that, in those terms, not a sympy term."""
    from tests._shared import derive_tiny

    src, d = derive_tiny(_two_periods, TWO, "two_periods")
    assert not d.failures, d.failures
    from paramcount.analyze.derive.proof import prove_derivation

    proof = prove_derivation(d, src)
    bad = [c for c in proof.cases if c.status != "proven"]
    assert bad, proof.cases
    msg = bad[0].message
    assert msg.startswith("two periods of one layer count layers, attn_period and "
                          "expert_period: jointly periodic, modulo their lcm"), msg


# --- layer counts a validator insists are multiples of a field that changes no weight -----------


def test_layer_counts_are_drawn_as_multiples_of_the_inert_fields_dividing_them_at_the_base():
    from types import SimpleNamespace

    from paramcount.analyze.derive.sampling import STEP, sample, steps

    d = SimpleNamespace(fields={"start": 6, "end": 18, "layers": 24, "hidden": 64},
                        explicit={"start": 6, "end": 18, "layers": 24, "hidden": 64,
                                  "block": 6, "passes": 3, "top_k": 8, "window": 7},
                        flags=())
    order = ["start", "end", "layers"]
    assert STEP == 8 and steps(d, order) == {"start": 6, "end": 6, "layers": 6}  # (not 24)
    rng = random.Random(1)
    for i in range(40):
        p = sample(rng, d, order, ["hidden"], structured=True, same=False, gaps=i % 2 == 1,
                   multiple=steps(d, order))
        assert all(p[f] % 6 == 0 and p[f] > 0 for f in order), p
        assert p["start"] <= p["end"] <= p["layers"], p


def _looped(cfg):
    """Inkling 2 Loop's looped layers: from ``start`` to ``end``, each a multiple of ``block``
    (which changes no weight), ``start`` above 0; a gate in each looped layer."""
    from torch import nn

    h, L, s, e, b = (cfg[k] for k in ("hidden", "layers", "start", "end", "block"))
    if s <= 0 or s % b or e % b:
        raise ValueError(f"`start` ({s}) and `end` ({e}) must be multiples of `block` ({b})")

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList(nn.Linear(h, 2 * h if s <= i < e else h, bias=False)
                                        for i in range(L))

    return Model()


@torch_side
def test_layer_counts_a_validator_insists_are_multiples_of_an_inert_field_derive():
    from paramcount.analyze.derive.core import derive
    from paramcount.analyze.derive.probe import Source

    d = derive(Source(builder=_looped, model_type="looped", defaults={
        "hidden": 4, "layers": 12, "start": 3, "end": 9, "block": 3}))
    assert not d.failures, d.failures
    assert "block" in d.inert and {"start", "end", "layers"} <= set(d.fields)
    assert {("divides", "start", "block"), ("divides", "end", "block")} <= set(d.constraints)
    p = {"hidden": 5, "layers": 20, "start": 6, "end": 15}
    assert d.count(p)["trainable"] == 9 * 2 * 25 + 11 * 25
