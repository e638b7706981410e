"""Floors the prover splits into sub-cases (paramcount.analyze.prove.floors), on derived formulas whose
references are written by hand here (no torch): a layer pattern of a constant period beside one
of a field (Qwen3-Next), a floor by a field of a width a constant divides (X-MOD), a floor whose
numerator and denominator are sums after the order relations (RecurrentGemma), and a floor whose
quotient a validator wants even (Cohere 2)."""

from __future__ import annotations

import pytest

from paramcount.analyze.derive.core import Derivation, Template
from paramcount.model.weights import Weight

ONE = ((1, ()),)


def _field(name: str):
    return ((1, (name,)),)


def _floor(a: str, b: str):
    return ((1, (("floor", a, b),)),)


def _arch(fields, templates, reference, constraints=(), explicit=None):
    from paramcount.analyze.derive.tree import architecture

    d = Derivation("floors", "Floors", {}, dict(fields), (), ())
    d.explicit = {**fields, **(explicit or {})}
    d.constraints = list(constraints)
    d.templates = [Template(n, "trainable", m, dims) for n, (m, dims) in templates.items()]
    reference.framework = "torch"
    return architecture(d, reference)


def _prove_all(arch):
    from paramcount.analyze.derive.proof import TorchOracle
    from paramcount.analyze.prove import cases, prove_case

    return [prove_case(c, make_oracle=TorchOracle, explain_residuals=False) for c in cases(arch)]


def _layers(moe_count):
    """Qwen3-Next's stack: attention every 4th layer, the MoE block every ``step``-th."""
    def reference(hp):
        h, out = hp["hidden_size"], []
        for i in range(hp["num_hidden_layers"]):
            if (i + 1) % 4 == 0:
                out.append(Weight(f"layers/{i}/attn/weight", h * h, True, (h, h)))
            moe = moe_count(i, hp["decoder_sparse_step"])
            name, n = ("moe", 2 * h) if moe else ("mlp", 3 * h)
            out.append(Weight(f"layers/{i}/{name}/weight", n, True, (n,)))
        return out
    return reference


_QWEN = {"layers.*.attn.weight": (_floor("num_hidden_layers", "4"),
                                  (_field("hidden_size"), _field("hidden_size"))),
         "layers.*.moe.weight": (_floor("num_hidden_layers", "decoder_sparse_step"),
                                 (((2, ("hidden_size",)),),)),
         "layers.*.mlp.weight": (((1, ("num_hidden_layers",)),
                                  (-1, (("floor", "num_hidden_layers", "decoder_sparse_step"),))),
                                 (((3, ("hidden_size",)),),))}
_QWEN_FIELDS = {"num_hidden_layers": 48, "decoder_sparse_step": 1, "hidden_size": 64}


def test_a_layer_pattern_of_a_field_beside_one_of_a_constant_is_proven():
    """Qwen3-Next: floor(L/4) splits L = 4·L' + ρ, then floor((4·L' + ρ)/step) was 'not a
    polynomial'; the step is taken a multiple of 4 (a sub-lattice), floor(L'/step') splits."""
    from paramcount.analyze.prove import cases

    arch = _arch(_QWEN_FIELDS, _QWEN, _layers(lambda i, s: (i + 1) % s == 0),
                 [("<=", "decoder_sparse_step", "num_hidden_layers")])
    got = cases(arch)
    assert len(got) == 8
    assert "decoder_sparse_step divides num_hidden_layers - 3" in got[6].label
    for c in got:  # every point is valid and in its sub-case
        for i in range(3):
            hp = c.hparams({x: 2 + i + j for j, x in enumerate(c.free)})
            assert c.meets(hp), (c.label, hp)
    assert {p.status for p in _prove_all(arch)} == {"proven"}


def test_a_wrong_layer_pattern_of_a_field_is_refuted():
    arch = _arch(_QWEN_FIELDS, _QWEN, _layers(lambda i, s: i % s == 0),  # the first, not last
                 [("<=", "decoder_sparse_step", "num_hidden_layers")])
    assert "refuted" in {p.status for p in _prove_all(arch)}


def test_a_floor_by_a_field_of_a_width_a_constant_divides_is_proven():
    """X-MOD: hidden_size a multiple of its 12 heads (which change no weight), the adapter
    floor(hidden_size / adapter_reduction_factor) wide."""
    fields = {"hidden_size": 768, "adapter_reduction_factor": 2}

    def reference(hp):
        h, a = hp["hidden_size"], hp["adapter_reduction_factor"]
        return [Weight("adapter/weight", h * (h // a), True, (h // a, h)),
                Weight("norm/weight", h, True, (h,))]

    arch = _arch(fields, {"adapter.weight": (ONE, (_floor("hidden_size",
                                                          "adapter_reduction_factor"),
                                                   _field("hidden_size"))),
                          "norm.weight": (ONE, (_field("hidden_size"),))},
                 reference, [("divides", "hidden_size", "num_attention_heads")],
                 {"num_attention_heads": 12})
    proofs = _prove_all(arch)
    assert [p.case for p in proofs] == ["adapter_reduction_factor divides hidden_size",
                                        "adapter_reduction_factor does not divide hidden_size"]
    assert {p.status for p in proofs} == {"proven"}
    assert any("sub-lattice" in n for n in proofs[0].parametrization)


@pytest.mark.parametrize("wrong", [False, True])
def test_a_floor_of_sums_after_the_order_relations_is_decided(wrong):
    """RecurrentGemma: kv ≤ heads and kv ≤ hidden wrote heads = kv + heads', hidden = kv +
    hidden', and floor(hidden/heads) became floor((hidden' + kv)/(heads' + kv))."""
    fields = {"hidden_size": 2560, "num_attention_heads": 10, "num_key_value_heads": 10}

    def reference(hp):
        h, m, kv = hp["hidden_size"], hp["num_attention_heads"], hp["num_key_value_heads"]
        d = -(-h // m) if wrong else h // m  # a ceiling where the formula floors
        return [Weight("q/weight", h * m * d, True, (m * d, h)),
                Weight("k/weight", h * kv * d, True, (kv * d, h))]

    per_head = _floor("hidden_size", "num_attention_heads")
    arch = _arch(fields, {
        "q.weight": (ONE, (((1, ("num_attention_heads", ("floor", "hidden_size",
                                                           "num_attention_heads"))),),
                           _field("hidden_size"))),
        "k.weight": (ONE, (((1, ("num_key_value_heads", per_head[0][1][0])),),
                           _field("hidden_size")))}, reference,
        [("<=", "num_key_value_heads", "hidden_size"),
         ("<=", "num_key_value_heads", "num_attention_heads")])
    by_case = {p.case: p.status for p in _prove_all(arch)}
    assert list(by_case) == ["num_attention_heads divides hidden_size",
                             "num_attention_heads does not divide hidden_size"]
    assert by_case["num_attention_heads divides hidden_size"] == "proven"
    assert by_case["num_attention_heads does not divide hidden_size"] == (
        "refuted" if wrong else "proven")


def test_a_floor_of_a_layer_count_above_another_count_is_proven():
    """Qwen3-Next's mlp_only_layers: n ≤ L writes L = n + L', so floor(L/step) is
    floor((n + L')/step), whose quotient no constant keeps the eliminated parameter positive
    (``n = step·q − L'``): it is the sub-region q > L' of the quotients that does."""
    def reference(hp):
        h, out = hp["hidden_size"], []
        for i in range(hp["num_hidden_layers"]):
            if (i + 1) % hp["decoder_sparse_step"] == 0:
                out.append(Weight(f"layers/{i}/moe/weight", 2 * h, True, (2 * h,)))
        out += [Weight(f"dense/{i}/weight", h, True, (h,)) for i in range(hp["n_dense"])]
        return out

    arch = _arch({"num_hidden_layers": 8, "decoder_sparse_step": 2, "hidden_size": 16,
                  "n_dense": 3},
                 {"layers.*.moe.weight": (_floor("num_hidden_layers", "decoder_sparse_step"),
                                          (((2, ("hidden_size",)),),)),
                  "dense.*.weight": (_field("n_dense"), (_field("hidden_size"),))},
                 reference, [("<=", "n_dense", "num_hidden_layers"),
                             ("<=", "decoder_sparse_step", "num_hidden_layers")])
    assert {p.status for p in _prove_all(arch)} == {"proven"}
