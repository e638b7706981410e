"""Derived formulas on their way to a proof: the tree of a derivation whose dimensions mix fields
and floors, refusals recorded as constraints, and layer counts that are floors of a field."""

from __future__ import annotations

from paramcount.analyze.derive.core import Derivation, Template


def _derivation(**templates) -> Derivation:
    d = Derivation("mixed", "Mixed", {}, {"hidden": 64, "heads": 4, "vocab": 100, "tie": 0},
                   ("tie",), ())
    d.templates = [Template(name, "trainable", mult, dims)
                   for name, (mult, dims) in templates.items()]
    return d


def test_tree_of_dimensions_that_mix_fields_and_floors():
    """Cohere's, RecurrentGemma's and X-MOD's trees: a template whose dimensions are a field and
    a floor (hidden · hidden // heads) beside a tied head; comparing shapes compared a field's
    name with a floor atom (TypeError: '<' not supported between 'tuple' and 'str')."""
    from paramcount.analyze.derive.tree import ties, tree

    one = ((1, ()),)
    hidden, vocab = ((1, ("hidden",)),), ((1, ("vocab",)),)
    per_head = ((1, (("floor", "hidden", "heads"),)),)
    d = _derivation(**{"embed.weight": (one, (vocab, hidden)),
                       "head.weight": (((1, ()), (-1, ("tie",))), (vocab, hidden)),
                       "proj.weight": (one, (hidden, per_head)),
                       "gate.weight": (one, (per_head, hidden))})
    assert ties(d) == {"head.weight": ("embed.weight", ("tie",))}
    from paramcount.analyze.derive.tree import field_symbols

    syms = field_symbols(d)
    at = {syms["hidden"]: 64, syms["heads"]: 4, syms["vocab"]: 100}
    assert tree(d).evaluate({**at, syms["tie"]: 0}) == 2 * 100 * 64 + 2 * 64 * 16
    assert tree(d).evaluate({**at, syms["tie"]: 1}) == 100 * 64 + 2 * 64 * 16


# --- refusals recorded as constraints (a validator as a function: no torch) --------------------


class _Validated:
    """A config validator's refusals as ``Run.try_build`` gives them: a line, or a build."""

    def __init__(self, refuses, odd_passes: int = 4):
        import types

        self.refuses = refuses
        self.src = types.SimpleNamespace(odd_passes=odd_passes)  # a build's (4) or a forward's

    def try_build(self, over):
        why = self.refuses(over)
        return why if why else {}


def _refusals(fields: dict[str, int], refuses, draws, inert: dict[str, int] | None = None,
              odd_passes: int = 4) -> list[tuple[str, str, str]]:
    """The constraints ``refusals.constraints`` records from samples drawn by ``draws``."""
    import random

    from paramcount.analyze.derive.refusals import constraints

    d = Derivation("v", "V", {}, dict(fields), (), ())
    d.explicit = {**(inert or {}), **fields}  # inert: fields that change no weight
    rng = random.Random(4)
    samples, refused = [], []
    for _ in range(120):
        p = draws(rng)
        why = refuses(p)
        (refused.append((p, why)) if why else samples.append((p, {})))
    constraints(_Validated(refuses, odd_passes), d, samples, refused, [], fields)
    return sorted(d.constraints)


def _rope(hd: int) -> str:  # transformers' validate_rope: an even head_dim, odd ones ≤ 4 pass
    return "validate_rope: odd head_dim" if hd > 4 and hd % 2 else ""


def test_validators_refusals_become_the_divisibilities_they_insist_on():
    """Gemma 2's validators: num_attention_heads divides hidden_size ('validate_architecture')
    and head_dim, a field, even ('validate_rope'). Samples where head_dim is a multiple of the
    KV heads and the KV heads are 2 once read as 'num_key_value_heads divides head_dim', and
    heads even as 'num_attention_heads even': each is now tested by a build breaking it alone."""
    fields = {"hidden_size": 2304, "num_attention_heads": 8, "num_key_value_heads": 4,
              "head_dim": 256}

    def refuses(p):
        if p["hidden_size"] % p["num_attention_heads"]:
            return "validate_architecture: hidden_size not a multiple of the heads"
        return _rope(p["head_dim"])

    def draws(rng):
        kv = rng.choice([1, 2, 4])
        heads = kv * rng.randint(1, 4)
        return {"num_key_value_heads": kv, "num_attention_heads": heads,
                "hidden_size": heads * rng.randint(1, 12) + rng.choice([0, 0, 0, 1]),
                "head_dim": 2 * kv * rng.randint(1, 8) + rng.choice([0, 0, 0, 1])}

    assert _refusals(fields, refuses, draws) == [
        ("divides", "head_dim", "2"), ("divides", "hidden_size", "num_attention_heads")]


def test_equal_divisors_are_broken_together():
    """BART's: d_model divides by the decoder's heads and by the encoder's, both 16 and changing
    no weight; no build breaks one alone, since breaking one breaks the other, and a proof point
    with d_model = 2 was refused ('embed_dim must be divisible by num_heads')."""
    heads = {"decoder_attention_heads": 16, "encoder_attention_heads": 16}

    def refuses(p):
        return "embed_dim must be divisible by num_heads" if p["d_model"] % 16 else ""

    def draws(rng):
        return {"d_model": 16 * rng.randint(1, 16) + rng.choice([0, 0, 0, 1])}

    found = _refusals({"d_model": 1024}, refuses, draws, heads)
    assert ("divides", "d_model", "decoder_attention_heads") in found
    assert ("divides", "d_model", "encoder_attention_heads") in found


def test_an_even_width_beside_a_constant_two_is_recorded():
    """Aria's: head_dim must be even (RoPE), and its top-k, 2, changes no weight: every sample
    with an even head_dim is a multiple of the top-k too, so an odd head_dim breaks both, and
    neither was recorded (the proof then drew an odd head_dim)."""
    def refuses(p):
        return _rope(p["head_dim"])

    def draws(rng):
        return {"head_dim": 2 * rng.randint(1, 40) + rng.choice([0, 0, 0, 1])}

    found = _refusals({"head_dim": 128}, refuses, draws, {"moe_topk": 2})
    assert ("divides", "head_dim", "2") in found


def test_divisors_equal_in_every_sample_are_told_apart_by_a_build_breaking_several():
    """LaraMini's: its validator insists that num_key_value_heads divide num_attention_heads and
    linear_num_key_heads divide linear_num_value_heads. Its samples (highly composite widths,
    its conv kernel often equal to the KV heads) had the KV heads and the kernel dividing nearly
    every field by chance, so that no build broke the heads' divisibility alone: nothing was
    recorded, and the proof drew heads the KV heads do not divide. A build breaking a
    divisibility among others, accepted, shows none of them is insisted on, and the rest then
    break alone. The samples are the derivation's own (its first 16, and its refused ones)."""
    import json
    from pathlib import Path

    from paramcount.analyze.derive.refusals import constraints

    data = json.loads((Path(__file__).parent / "data" / "lara_mini_refusals.json").read_text())
    names = data["names"]

    def refuses(p):
        if p["num_attention_heads"] % p["num_key_value_heads"]:
            return "ValueError: `num_attention_heads` must be a multiple of `num_key_value_heads`."
        if p["linear_num_value_heads"] % p["linear_num_key_heads"]:
            return "ValueError: `linear_num_value_heads` must be a multiple of `linear_num_key_heads`."
        return ""

    d = Derivation("lara_mini", "LaraMiniForCausalLM", {}, dict(data["fields"]), tuple(data["flags"]), ())
    d.explicit = data["explicit"]
    samples = [(dict(zip(names, row, strict=True)), {}) for row in data["samples"]]
    refused = [(dict(zip(names, row, strict=True)), why) for row, why in data["refused"]]
    constraints(_Validated(refuses), d, samples, refused, data["order"], data["fields"])
    assert sorted(d.constraints) == [("divides", "linear_num_value_heads", "linear_num_key_heads"),
                                     ("divides", "num_attention_heads", "num_key_value_heads")]


def test_a_refusal_for_a_width_no_candidate_models_records_no_divisibility():
    """Zamba2's: its attention's head_dim is 2·hidden_size // num_attention_heads, 0 (and
    0.0 ** -0.5 raises) where hidden_size is below half the heads, an order no candidate says.
    Every build breaking "vocab_size // hidden_size is even" (or "2·hidden_size divides
    num_key_value_heads") alone moved hidden_size that far down, was refused for it, and the
    divisibility was recorded, though the config's own defaults break it (derive then refused
    to count them). A refusal is now set against a build moving the same field as near that
    breaks nothing: refused too, it says nothing of the divisibility. Its RoPE check wants that
    head_dim even: twice a field over another is a quotient asked too."""
    def refuses(p):
        if 2 * p["hidden_size"] // p["num_attention_heads"] == 0:
            return "ZeroDivisionError: 0.0 cannot be raised to a negative power"
        return _rope(2 * p["hidden_size"] // p["num_attention_heads"])

    def draws(rng):
        hidden = rng.choice([4, 8, 24, 96, 256, 512, 9, 15])
        heads = max(1, hidden * rng.choice([1, 2]) // rng.choice([1, 1, 2, 4]))
        return {"hidden_size": hidden, "num_attention_heads": heads,
                "num_key_value_heads": rng.choice([1, heads, 10 * hidden]),
                "vocab_size": 2 * hidden * rng.choice([1, 3])}

    base = {"hidden_size": 2560, "num_attention_heads": 32, "num_key_value_heads": 32,
            "vocab_size": 32000}
    found = _refusals(base, refuses, draws)
    # what RoPE insists on, its head_dim even, is recorded as the quotient it is
    assert [c for c in found if c[0] == "divides"] == [
        ("divides", "2*hidden_size//num_attention_heads", "2")], found


def test_a_divisibility_met_by_chance_does_not_hide_one_insisted_on():
    """CodeGen's: n_embd must divide by its 16 heads (which change no weight), and every sample
    had its vocabulary dividing n_embd too, by chance; while that one had to hold, no n_embd off
    the heads' multiples could be tried, and nothing was recorded."""
    def refuses(p):
        return "embed_dim must be divisible by num_attention_heads" if p["n_embd"] % 16 else ""

    def draws(rng):
        vocab = 16 * rng.randint(1, 4)
        return {"vocab_size": vocab, "n_embd": vocab * rng.randint(1, 4) + rng.choice([0, 0, 3])}

    found = _refusals({"n_embd": 4096, "vocab_size": 50400}, refuses, draws, {"n_head": 16})
    assert ("divides", "n_embd", "n_head") in found
    assert ("divides", "n_embd", "vocab_size") not in found


def test_an_even_quotient_is_twice_the_divisor():
    """Cohere 2's: head_dim is hidden_size // num_attention_heads, and RoPE wants it even: 2·heads
    divides hidden_size (which implies heads divides it, left unsaid)."""
    fields = {"hidden_size": 8192, "num_attention_heads": 64}

    def refuses(p):
        h, n = p["hidden_size"], p["num_attention_heads"]
        return "validate_architecture: not a multiple" if h % n else _rope(h // n)

    def draws(rng):
        n = rng.randint(1, 12)
        return {"num_attention_heads": n,
                "hidden_size": n * 2 * rng.randint(1, 16) + rng.choice([0, 0, 0, 1, n])}

    assert _refusals(fields, refuses, draws) == [
        ("divides", "hidden_size", "2*num_attention_heads")]


def test_a_power_of_two_a_validator_insists_on_is_recorded_once():
    """NeoMME's: its global layers rotate int(head_dim / 4) dims and its sliding layers all of
    head_dim, each a positive multiple of 4: 16 divides head_dim. Only 2 was a constant divisor,
    a refused head_dim of 24 was read as another field's divisibility, and the proof then drew
    head_dim = 4. Said once: 16, not 2, 4 and 8 beside it; the even head_dims a sample met by
    chance above 16 (a multiple of 32) are broken by an accepted build."""
    fields = {"head_dim": 64, "hidden_size": 1024, "embedding_rank": 256}

    def refuses(p):
        rot = p["head_dim"] // 4
        return "" if rot >= 4 and rot % 4 == 0 and p["head_dim"] % 4 == 0 else \
            "rotates int(head_dim / 4) dims, which is not a multiple of 4"

    def draws(rng):
        return {"head_dim": 16 * rng.choice([2, 4, 6]) + rng.choice([0, 0, 0, 8, 4, 2, 1]),
                "hidden_size": 32 * rng.randint(1, 40), "embedding_rank": 64 * rng.randint(1, 8)}

    assert _refusals(fields, refuses, draws) == [("divides", "head_dim", "16")]


# --- a proof's messages name the framework that built the reference -----------------------------


def test_a_torch_builds_refusal_is_not_called_a_keras_builds():
    """A derived formula's proof builds torch models; its error said 'a Keras build raised'."""
    import dataclasses

    from paramcount.analyze.prove import cases, prove_case
    from paramcount.analyze.prove.oracle import Oracle
    from paramcount.model import registry

    class Refusing(Oracle):
        def _measure(self, point):
            raise ValueError("Class validation error for validator 'validate_rope'")

    def reference(hp):
        raise AssertionError("not built")

    reference.framework = "torch"  # type: ignore[attr-defined]
    gpt2 = registry.get("gpt2")
    for arch, said in ((gpt2, "Keras"), (dataclasses.replace(gpt2, reference=reference), "torch")):
        case = cases(arch)[0]
        assert Refusing(case).framework == said
        got = prove_case(dataclasses.replace(case, structural=frozenset()), make_oracle=Refusing)
        assert got.status == "error" and got.message.startswith(f"a {said} build raised ValueError")


def test_a_divisibility_every_sample_met_by_chance_is_still_tested():
    """MiniMax-M2's: no random sample had an odd head_dim, so nothing was refused and nothing
    recorded, and the proof's large values met RoPE's check. Jais 2's: head_dim divided
    hidden_size in every sample, so an odd head_dim alone needs hidden_size moved with it."""
    fields = {"hidden_size": 3072, "head_dim": 128}

    def draws(rng):
        hd = 2 * rng.randint(1, 32)
        return {"head_dim": hd, "hidden_size": hd * rng.randint(1, 8)}

    assert _refusals(fields, lambda p: _rope(p["head_dim"]), draws) == [
        ("divides", "head_dim", "2")]


def test_a_width_below_a_divisor_refused_is_an_order():
    """CTRL's: head_dim = n_embd // n_head is 0 where n_embd < n_head (16, a field that changes
    no weight), and the build raises (0.0 ** -0.5): n_head ≤ n_embd, at n_head's base value."""
    from paramcount.analyze.derive.tree import architecture

    fields = {"n_embd": 1280, "n_layer": 48}

    def refuses(p):
        return "ZeroDivisionError: 0.0 cannot be raised" if p["n_embd"] < 16 else ""

    def draws(rng):
        return {"n_embd": rng.randint(1, 64), "n_layer": rng.randint(1, 10)}

    import random

    from paramcount.analyze.derive.refusals import constraints

    d = Derivation("ctrl_like", "C", {}, dict(fields), (), ())
    d.explicit = {**fields, "n_head": 16}
    rng = random.Random(5)
    samples, refused = [], []
    for _ in range(60):
        p = draws(rng)
        (refused.append((p, refuses(p))) if refuses(p) else samples.append((p, {})))
    constraints(_Validated(refuses), d, samples, refused, [], d.explicit)
    assert d.constraints == [("<=", "n_head", "n_embd")]
    one = ((1, ()),)
    d.templates = [Template("w.weight", "trainable", one, (((1, ("n_embd",)),),))]
    (relation,) = architecture(d, lambda hp: []).constraints
    assert relation.describe().replace(" ", "") in ("16<=n_embd", "n_embd>=16"), relation


def test_a_width_below_a_divisor_no_sample_tried_is_still_tested():
    """CTRL's at n_head 4 (`count --config` of a small CTRL): every random n_embd was a multiple
    of the heads, so none lay below them and none was refused; the order was not recorded, and
    the proof drew n_embd < 4 (0 of 2 cases proven). Where every sample kept a width at least
    another, one build below decides it, as with the divisibilities."""
    def refuses(p):
        return "ZeroDivisionError: 0.0 cannot be raised" if p["n_embd"] < 4 else ""

    def draws(rng):
        return {"n_embd": 4 * rng.randint(1, 16)}

    assert _refusals({"n_embd": 256}, refuses, draws, {"n_head": 4}) == [
        ("<=", "n_head", "n_embd")]
    # and nothing where a width below builds (GPT-2's vocabulary below its heads)
    assert _refusals({"n_embd": 256}, lambda p: "", draws, {"n_head": 4}) == []


def test_an_odd_head_dim_alone_moves_the_fields_that_divided_it():
    """Llama's: every sample's head_dim was a multiple of its (even) num_attention_heads, so an
    odd head_dim broke that too and RoPE's evenness was never tested alone; the heads that
    divided head_dim are set to 1 beside it."""
    fields = {"hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128}

    def refuses(p):
        if p["hidden_size"] % p["num_attention_heads"]:
            return "validate_architecture: hidden_size not a multiple of the heads"
        return _rope(p["head_dim"])

    def draws(rng):
        heads = 2 * rng.randint(1, 6)
        return {"num_attention_heads": heads, "hidden_size": heads * rng.randint(1, 9),
                "head_dim": heads * rng.randint(1, 9) + rng.choice([0, 0, 0, 1])}

    assert _refusals(fields, refuses, draws) == [
        ("divides", "head_dim", "2"), ("divides", "hidden_size", "num_attention_heads")]


def test_an_even_floored_quotient_is_recorded_and_proven_on():
    """Cohere 2's real validators: head_dim = hidden_size // num_attention_heads (a floor: no
    divisibility asked) and RoPE wants it even. No divisibility of two fields explains the
    refusals, so nothing was recorded and every proof case drew an odd head_dim
    (StrictDataclassClassValidationError for 'validate_rope')."""
    fields = {"hidden_size": 8192, "num_attention_heads": 64}

    def refuses(p):
        return _rope(p["hidden_size"] // p["num_attention_heads"])

    def draws(rng):
        n = rng.randint(1, 12)
        return {"num_attention_heads": n,
                "hidden_size": n * 2 * rng.randint(1, 16) + rng.choice([0, 0, 0, 1, n])}

    found = _refusals(fields, refuses, draws)
    assert found == [("divides", "hidden_size//num_attention_heads", "2")]
    from paramcount.analyze.derive.tree import architecture
    from paramcount.analyze.prove import cases

    d = Derivation("cohere2_like", "C", {}, dict(fields), (), ())
    d.explicit, d.constraints = dict(fields), found
    one = ((1, ()),)
    per_head = ((1, ("num_attention_heads", ("floor", "hidden_size", "num_attention_heads"))),)
    d.templates = [Template("q.weight", "trainable", one, (per_head, ((1, ("hidden_size",)),)))]
    got = cases(architecture(d, lambda hp: []))
    assert [c.label for c in got] == ["num_attention_heads divides hidden_size",
                                      "num_attention_heads does not divide hidden_size"]
    for c in got:  # every point the proof draws has an even head_dim
        for i in range(4):
            hp = c.hparams({x: 3 + i + j for j, x in enumerate(c.free)})
            assert (hp["hidden_size"] // hp["num_attention_heads"]) % 2 == 0, (c.label, hp)


def test_settling_builds_move_the_fields_the_settled_one_divides():
    """Zaya's: kv heads must divide the heads; its settling builds (kv + 1, to tell
    (kv·head_dim) // 2 from kv·head_dim / 2) kept the heads, so one of six was accepted and a
    fit true at that one point alone was kept. The heads now move with kv, a multiple of it."""
    from paramcount.analyze.derive.templates import _settle

    class Run:
        def try_build(self, over):
            if over["heads"] % over["kv"]:
                return "heads must be a multiple of kv"
            return {"v.weight": object()}

    d = Derivation("zaya_like", "Z", {}, {"heads": 8, "kv": 2, "head_dim": 128}, (), ())
    d.constraints = [("divides", "heads", "kv")]
    drawn = [{"heads": 4 * k, "kv": 2 * k, "head_dim": 16 * k} for k in range(1, 7)]
    samples: list = []
    assert _settle(Run(), d, "v.weight", ("kv", "2"), drawn, samples, {})
    assert [p["kv"] for p, _ in samples] == [3, 5, 7, 9, 11, 13]
    assert all(p["heads"] % p["kv"] == 0 for p, _ in samples)


def test_settling_a_floor_of_two_fields_builds_at_twice_the_divisor():
    """LUKE's: every sample had entity_emb_size ≤ hidden_size, where ⌊emb / hidden⌋ is
    [emb = hidden]; a count's settling builds (any build, the template present or not) put emb
    at 2·hidden, where the floor is 2 and the equality 0."""
    from paramcount.analyze.derive.templates import _settle

    class Run:
        def try_build(self, over):
            return {} if over["emb"] == over["hidden"] else {"dense.weight": object()}

    d = Derivation("luke_like", "L", {}, {"emb": 32, "hidden": 96}, (), ())
    drawn = [{"emb": 8 * k, "hidden": 24 * k} for k in range(1, 9)]
    samples: list = []
    assert _settle(Run(), d, "", ("emb", "hidden"), drawn, samples, {})
    assert [p["emb"] for p, _ in samples] == [48 * k for k in range(1, 7)]


def test_a_leaf_remembers_the_paths_it_claims_with_the_same_answers():
    """A proof's builds name the same weight paths over and over; each leaf of a derived
    architecture keeps its answers (proof.remember_claims), which must be its own."""
    import types

    from paramcount.analyze.derive.proof import remember_claims
    from paramcount.core.formula import Leaf, group, leaf

    tree = group("model", group("layers", leaf("q", 4, match=r"q_proj"), match=r"layers/\d+"),
                 leaf("emb", 8, match=r"embed"))
    arch = types.SimpleNamespace(formula=tree)
    paths = ["model/layers/0/q_proj/weight", "model/embed/weight", "model/layers/1/k_proj/weight",
             "model/layers/0/q_proj/weight"]
    want = {lf.path: [Leaf.claims(lf, p) for p in paths] for lf in tree.leaves()}
    remember_claims(arch)
    remember_claims(arch)  # once is enough: a second call keeps the first memo
    for lf in tree.leaves():
        assert [lf.claims(p) for p in paths] == want[lf.path]
        assert lf.claims.cache_info().hits == 1  # the repeated path was not matched again
    assert want["model.layers.q"] == [True, False, False, True]


def test_a_layer_count_a_composite_block_divides_is_recorded_though_no_build_breaks_it_alone():
    """Inkling 2 Loop's: loop_layer_index_start and loop_layer_index_end must be multiples of its
    6 n_layers_per_attn_res_block (no weight reads it), and its 3 loop_num_passes changes no
    weight either. Every accepted sample had start 6 and end 6 or 12: 2, 3 and start divided
    end in each, so every value off a multiple of 6 broke another of them, no build broke '6
    divides end' alone, and nothing was recorded but a false 'loop_num_passes divides start';
    the proof then drew ends off the multiples, and the validator refused them. A build n/r off
    a multiple, for each prime r of n (end 9: 2 broken, 3 kept; end 10: 3 broken), refused
    each, records it."""
    import random

    from paramcount.analyze.derive.refusals import constraints

    fields = {"start": 6, "end": 18, "layers": 24}

    def refuses(p):
        if not 0 < p["start"] <= p["end"] <= p["layers"]:
            return "ValueError: the loop's layers out of order"
        if p["start"] % 6 or p["end"] % 6:
            return "ValueError: `loop_layer_index_*` must be a multiple of `block` (6)."
        return ""

    rng = random.Random(4)
    samples, refused = [], []
    for i in range(200):
        if i % 2:  # on the step (sampling.steps), as the derivation draws when few build
            end = 6 * rng.randint(1, 2)
            p = {"start": 6, "end": end, "layers": rng.randint(end, 12)}
        else:
            layers = rng.randint(1, 12)
            end = rng.randint(1, layers)
            p = {"start": rng.randint(1, end), "end": end, "layers": layers}
        why = refuses(p)
        (refused.append((p, why)) if why else samples.append((p, {})))
    assert {p["start"] for p, _ in samples} == {6} and {p["end"] for p, _ in samples} == {6, 12}
    d = Derivation("loop", "Loop", {}, dict(fields), (), ())
    d.explicit = {"block": 6, "passes": 3, **fields}
    constraints(_Validated(refuses), d, samples, refused, ["start", "end", "layers"], fields)
    divides = sorted(c for c in d.constraints if c[0] == "divides")
    assert divides == [("divides", "end", "block"), ("divides", "start", "block")]


def _forward(p) -> str:  # a cache's forward (Qwen 2's): RoPE refuses every odd head_dim
    heads, kv = p["num_attention_heads"], p["num_key_value_heads"]
    if heads % kv:
        return "RuntimeError: the size of tensor a must match the size of tensor b"
    hd = p["hidden_size"] // heads
    return "ZeroDivisionError" if hd == 0 else ("broadcast" if hd % 2 else "")


def _small_heads(rng):  # samples as a forward's derivation draws them: heads 1 to 4 wide
    kv = rng.choice([1, 2, 4])
    heads = kv * rng.randint(1, 4) + rng.choice([0, 0, 0, 1])
    return {"num_key_value_heads": kv, "num_attention_heads": heads,
            "hidden_size": heads * rng.randint(1, 4) + rng.choice([0, 0, 1]),
            "T": rng.choice([2, 4, 8]) * kv}


def test_a_forward_asks_every_head_width_to_be_even():
    """A build's validator passes an odd head_dim up to 4 (``odd_passes`` 4), and a forward
    fails at every odd one (a cache's source: 0). Read with a build's rule, samples whose heads
    are 1 to 4 wide never ask it, and the refusals were blamed on others (Qwen 2's cache: '4
    divides hidden_size'); with a forward's, the head width's evenness is what is recorded."""
    fields = {"hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "T": 5}
    forward = _refusals(fields, _forward, _small_heads, odd_passes=0)
    assert ("divides", "hidden_size//num_attention_heads", "2") in forward
    assert ("divides", "hidden_size//num_attention_heads", "2") \
        not in _refusals(fields, _forward, _small_heads)


def test_a_product_is_the_factor_no_build_told_apart():
    """KV heads divide T × heads in every sample where they divide the heads: 'KV heads divide
    T*num_attention_heads' stood beside the heads' own, blocked every build breaking those alone
    (T, B and the layers all kept), and was recorded instead. Recorded now: the heads' own."""
    def draws(rng):
        kv = rng.choice([1, 2, 4, 8])
        heads = kv * rng.randint(1, 4) + rng.choice([0, 0, 0, 1])
        return {"num_key_value_heads": kv, "num_attention_heads": heads,
                "hidden_size": heads * rng.choice([2, 4]), "T": rng.randint(1, 12),
                "B": rng.randint(1, 12), "num_hidden_layers": rng.randint(1, 12)}

    fields = {"hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "T": 5,
              "B": 3, "num_hidden_layers": 32}
    assert _refusals(fields, _forward, draws, odd_passes=0) == [
        ("divides", "hidden_size", "2*num_attention_heads"),
        ("divides", "num_attention_heads", "num_key_value_heads")]
