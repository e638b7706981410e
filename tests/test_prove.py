"""Proofs (paramcount.analyze.prove): formula ≡ Keras as polynomials, and exact residuals when not."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction

import pytest

from paramcount.analyze import prove
from paramcount.cli.main import main
from paramcount.core.symbols import L, M, d_e
from paramcount.model import registry
from paramcount.model.components import layer_norm
from paramcount.output import proofs

# A few architectures proven in the default run: plain, every flag combination, GQA constraints.
QUICK = [a for a in ("gpt2", "lstm_lm", "llama") if a in registry.architectures()]


@pytest.mark.parametrize("arch_id", QUICK)
def test_prove_quick(arch_id):
    p = prove.cached_prove(arch_id)
    assert p.status == "proven", proofs.proof_text(p)
    arch = registry.get(arch_id)
    flags = [s for s in arch.settable if s.name in ("bi", "tied", "reset_after")]
    floored = 2 if arch_id == "gpt2" else 1  # M | d_e or not (KerasHub floors d_e // M)
    assert len(p.cases) == 2 ** len(flags) * floored
    for c in p.cases:
        assert c.error_bound < prove.TARGET_ERROR
        assert c.builds == c.points_per_node * 3  # L ∈ {1, 2, 3}: degree 1 + margin 1
        assert c.structural == {"L": (1, 2, 3)}


def _broken(arch_id: str, new_id: str, path: str, term):
    arch = registry.get(arch_id)
    return dataclasses.replace(arch, id=new_id, formula=arch.formula.replace(path, term),
                               presets=None, keras_hub_metadata=False)


@pytest.fixture
def broken_gpt2():
    """gpt2 with norm_2 a γ-only norm (β missing): Keras has L·d_e more in that component."""
    arch = _broken("gpt2", "gpt2_broken_for_test", "blocks.norm_2",
                   layer_norm("norm_2", beta=0, match="feedforward_layer_norm"))
    registry.register(arch)
    try:
        yield arch
    finally:
        registry.unregister(arch.id)


@pytest.fixture
def gpt2_without_norm():
    """gpt2 with norm_2 removed: its Keras weights are claimed by no component."""
    arch = _broken("gpt2", "gpt2_missing_norm_for_test", "blocks.norm_2", None)
    registry.register(arch)
    try:
        yield arch
    finally:
        registry.unregister(arch.id)


def test_refutes_wrong_component_with_exact_residual(broken_gpt2):
    p = prove.prove(broken_gpt2)
    assert p.status == "refuted"
    # every case (M divides d_e or not: KerasHub floors the head width) has the same residual
    assert len(p.cases) == 2
    for case in p.cases:
        assert [(r.component, r.expr) for r in case.residuals] == [("blocks.norm_2", L * d_e)]
    assert "blocks.norm_2: +L·d_e (Keras builds more than the formula counts)" in \
        proofs.proof_text(p)


def test_refutes_missing_component_names_unclaimed_weights(gpt2_without_norm):
    for case in prove.prove(gpt2_without_norm).cases:  # M divides d_e, or not
        assert case.status == "refuted"
        (res,) = case.residuals
        assert res.component == prove.UNCLAIMED and res.expr == 2 * L * d_e
        assert "transformer_layer_#/feedforward_layer_norm/gamma" in res.weights


def test_verify_prints_residual_for_a_mismatch(broken_gpt2, capsys):
    assert main(["verify", broken_gpt2.id, "--set", "v=50", "n=8", "d_e=12", "M=3", "d_f=7",
                 "L=2", "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH" in out and "~ residual blocks.norm_2: +L·d_e" in out
    assert main(["verify", broken_gpt2.id, "--set", "v=50", "n=8", "d_e=12", "M=3", "d_f=7",
                 "L=2", "--json"]) == 1
    (res,) = json.loads(capsys.readouterr().out)
    assert res["residuals"] == [{"component": "blocks.norm_2", "residual": "L*d_e",
                                 "weights": [], "note": ""}]


def test_prove_cli_exit_status(broken_gpt2, capsys):
    assert main(["prove", broken_gpt2.id, "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "REFUTED" in out and "residual blocks.norm_2: +L·d_e" in out
    assert main(["prove", "no_such_arch"]) == 2


def test_prove_cli_json(capsys):
    assert main(["prove", "lstm_lm", "--json"]) == 0
    (p,) = json.loads(capsys.readouterr().out)
    assert p["status"] == "proven" and len(p["cases"]) == 4
    case = p["cases"][0]
    assert case["degree_bounds"]["L"] == 2 and case["interpolation_nodes"] == {"L": [1, 2, 3]}
    assert case["error_bound"] < prove.TARGET_ERROR and case["builds"] > 0


def test_parametrization_of_constraints():
    if "llama" not in registry.architectures():
        pytest.skip("llama not registered")
    arch = registry.get("llama")
    case = prove.parametrize(arch, {s: 0 for s in arch.settable if s.name == "tied"})
    names = {x.name for x in case.free}
    assert names == {"v", "d_f", "L", "M_kv", "M'", "d_e'"}
    # every point is valid: M = M_kv·M', d_e = M·d_e'
    hp = case.hparams({x: 3 + i for i, x in enumerate(case.free)})
    assert hp["M"] % hp["M_kv"] == 0 and hp["d_e"] % hp["M"] == 0
    assert arch.resolve(hp)
    # back to the original symbols: d_e' is d_e/M
    de_ = next(x for x in case.free if x.name == "d_e'")
    assert case.to_original(de_ * M) == d_e


def test_parametrization_of_flag_relation():
    arch = registry.get("lstm_lm")
    by_case = {c.label: c for c in prove.cases(arch)}
    tied_bi = by_case["bi=1, tied=1"]
    assert "d_e" not in {x.name for x in tied_bi.free}  # eliminated: d_e = 2·d_h
    hp = tied_bi.hparams({x: 5 for x in tied_bi.free})
    assert hp["d_e"] == 2 * hp["d_h"]
    assert "d_e" in {x.name for x in by_case["bi=1, tied=0"].free}


def test_structural_symbols_are_layer_counts():
    assert {s.name for s in prove.structural_symbols(registry.get("gpt2"))} == {"L"}


def test_exact_univariate_interpolation():
    xs = [3, 4, 5, 6]
    ys = [Fraction(2 * x**3 - x + 7) for x in xs]
    assert prove.interpolate_coefficients(xs, ys) == [7, -1, 0, 2]


def test_report_section_is_deterministic():
    results = [type("R", (), {"arch": "gpt2"})()]
    a = proofs.proofs_markdown(prove.proofs_of(results))
    # gpt2's cases: KerasHub floors the head width, so M divides d_e or does not
    assert "## Proofs" in a and "| gpt2 | M divides d_e | ✅ proven |" in a
    assert "| gpt2 | M does not divide d_e | ✅ proven |" in a
    assert proofs.proofs_markdown(prove.proofs_of(results)) == a


@pytest.mark.slow
@pytest.mark.parametrize("arch_id", sorted(registry.architectures()))
def test_prove_every_architecture(arch_id):
    p = prove.cached_prove(arch_id)
    assert p.status == "proven", proofs.proof_text(p)


def test_piecewise_term_splits_the_case():
    if "electra" not in registry.architectures():
        pytest.skip("electra not registered")
    arch = registry.get("electra")
    labels = [c.label for c in prove.cases(arch)]
    assert labels == ["M divides d_e, d_emb = d_e", "M does not divide d_e, d_emb = d_e",
                      "M divides d_e, d_emb ≠ d_e", "M does not divide d_e, d_emb ≠ d_e"]
    hp = arch.resolve(arch.preset("electra_small_discriminator_uncased_en").hparams)
    assert prove.case_of(arch, hp).label == ("M divides d_e, "
                                             + ("d_emb = d_e" if hp["d_emb"] == hp["d_e"]
                                                else "d_emb ≠ d_e"))


def test_floored_head_width_splits_on_divisibility():
    # KerasHub's key_dim = d_e // M: M | d_e (d_e = M·d_e'), or d_e = M·q + r with 0 < r < M
    arch = registry.get("gpt2")
    divides, remainder = prove.cases(arch)
    assert (divides.label, remainder.label) == ("M divides d_e", "M does not divide d_e")
    for i in range(5):
        hp = remainder.hparams({x: 2 + i + j for j, x in enumerate(remainder.free)})
        assert hp["d_e"] % hp["M"] != 0
        assert arch.resolve(hp)["d_k"] == hp["d_e"] // hp["M"]
    assert prove.case_of(arch, {**arch.preset("tiny").hparams, "M": 3}) == remainder
    assert prove.case_of(arch, arch.preset("tiny").hparams) == divides


def test_stacked_experts_are_not_structural_but_layers_are():
    if "mixtral" not in registry.architectures():
        pytest.skip("mixtral not registered")
    arch = registry.get("mixtral")
    (case,) = prove.cases(arch)
    assert {x.name for x in case.structural} >= {"L", "k"}  # candidates: layers, times, top-k
    measured = prove.classify(case, prove.Oracle(case))
    assert {x.name for x in measured.structural} == {"L"}  # E experts live in one weight


def test_a_flag_used_only_in_defaults_is_not_a_case():
    # Gemma's post_norm only sets the defaults of post_attn_norm and post_ffw_norm
    arch = registry.get("gemma")
    assert [s.name for s in prove.case_flags(arch)] == ["post_attn_norm", "post_ffw_norm"]
    labels = [c.label for c in prove.cases(arch)]
    assert labels == [f"post_attn_norm={a}, post_ffw_norm={f}" for a in (0, 1) for f in (0, 1)]
    hp = arch.resolve(arch.preset("gemma2_2b_en").hparams)
    assert prove.case_of(arch, hp).label == "post_attn_norm=1, post_ffw_norm=1"
    assert prove.case_of(arch, {**hp, "post_ffw_norm": 0}).label == \
        "post_attn_norm=1, post_ffw_norm=0"


# --- thresholds (issue 11, item 10): proven only below TARGET_ERROR, no unexplained exception
def _gpt2_whose_build_raises(new_id: str, exc_type: type[BaseException], above: int):
    """gpt2 whose Keras build raises ``exc_type`` once d_e exceeds ``above``."""
    from paramcount.analyze.verify import build_reference

    gpt2 = registry.get("gpt2")

    def builder(hp):
        if hp["d_e"] > above:
            raise exc_type(f"refusing d_e={hp['d_e']}")
        return build_reference(gpt2, hp)

    return dataclasses.replace(gpt2, id=new_id, reference=builder, presets=None,
                               keras_hub_metadata=False)


def test_a_bound_not_below_the_threshold_is_not_a_proof(monkeypatch):
    """With values drawn below 2^3 the Schwartz–Zippel bound is ≥ 1: no proof at all (it was
    called proven, with P(false proof) ≤ 1.0)."""
    from paramcount.runtime import cache

    # the patched constant is no input the proof cache keys on: prove afresh
    monkeypatch.setenv(cache.CACHE_ENV, "0")
    monkeypatch.setattr(prove.decide, "VALUE_BITS", (3,))
    proof = prove.prove("gpt2")  # (once: proving afresh costs seconds each time)
    for case in proof.cases:  # M divides d_e, or not
        assert case.status == "inconclusive" and case.error_bound == 0.0
        assert f"not below {prove.TARGET_ERROR:g}" in case.message
    assert proof.status == "inconclusive"
    assert "INCONCLUSIVE" in proofs.proof_text(proof)


def test_an_unexplained_exception_is_an_error_not_a_retry():
    """A build raising an arbitrary exception at large values (it was retried with smaller values
    and the case called proven) ends the case as an error naming the exception."""
    arch = _gpt2_whose_build_raises("gpt2_raises_for_test", RuntimeError, 2**12)
    for case in prove.prove(arch).cases:  # M divides d_e, or not
        assert case.status == "error"
        assert "RuntimeError: refusing d_e=" in case.message and "not proven" in case.message


def test_a_size_failure_is_retried_smaller_and_said():
    arch = _gpt2_whose_build_raises("gpt2_too_big_for_test", MemoryError, 2**16)
    divides, remainder = prove.prove(arch).cases
    assert divides.status == "proven" and divides.error_bound < prove.TARGET_ERROR
    assert "values kept below 2^16" in divides.message and "MemoryError" in divides.message
    # d_e = M·q + r grows as a product: below 2^16 the bound may not reach TARGET_ERROR, and
    # then the case says so rather than calling itself proven
    assert "MemoryError" in remainder.message
    assert remainder.status == "proven" or f"not below {prove.TARGET_ERROR:g}" in remainder.message


def test_prove_prints_no_tensorflow_start_up_notices():
    """The oracle imports reference_models (which mutes TensorFlow's C++ notices) before Keras."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, "-m", "paramcount", "prove", "lstm_lm", "--quiet"],
                          capture_output=True, text=True, cwd=root, timeout=300,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "oneDNN" not in proc.stderr and "cuda" not in proc.stderr
