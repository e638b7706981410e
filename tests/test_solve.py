"""paramcount solve: the valid value of one hyperparameter whose total is nearest a budget."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from paramcount.analyze.solve import parse_target, solve
from paramcount.cli.main import main
from paramcount.core import symbols
from paramcount.core.errors import HyperparameterError, UnknownSymbolError
from paramcount.model import registry

LLAMA_7B_L32 = dict(v=32000, M=32, M_kv=32, d_f=11008, L=32)


def _total(arch_id, **hp):
    arch = registry.get(arch_id)
    return arch.count(arch.resolve(hp))


@pytest.mark.skipif("llama" not in registry.architectures(), reason="llama not registered")
def test_llama_7b_d_e_with_32_layers():
    sol = solve("llama", "7e9", "d_e", LLAMA_7B_L32)
    below, above = sol.below, sol.above
    # d_e must be a multiple of M = 32: the two answers are neighbouring multiples around 7e9
    assert (below.value, above.value) == (4192, 4224)
    assert below.total == _total("llama", d_e=4192, **LLAMA_7B_L32) == 6_947_858_528
    assert above.total == _total("llama", d_e=4224, **LLAMA_7B_L32) == 7_018_197_120
    assert below.total <= 7e9 <= above.total
    assert sol.best is above  # 18.2M above beats 52.1M below


@pytest.mark.skipif("llama" not in registry.architectures(), reason="llama not registered")
def test_llama_preset_then_override(capsys):
    assert main(["solve", "llama", "--target", "7B", "--for", "d_e", "--preset", "llama2_7b_en",
                 "--set", "L=32", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["below"]["value"] == 4192 and out["above"]["value"] == 4224
    assert out["closest"]["total"] == 7_018_197_120
    assert "d_e" not in out["given"]


@pytest.mark.skipif("llama" not in registry.architectures(), reason="llama not registered")
def test_divisor_unknown_respects_m_kv_divides_m():
    sol = solve("llama", "6.6e9", "M_kv", dict(v=32000, M=32, d_e=4096, d_f=11008, L=32))
    # only divisors of M are valid; the count grows with M_kv
    assert 32 % sol.below.value == 0 and 32 % sol.above.value == 0
    assert sol.below.total <= 6.6e9 <= sol.above.total


def test_gpt2_d_e_is_nearest_and_llama_d_e_respects_divisibility():
    hp = dict(v=50257, n=1024, M=12, d_f=3072, L=12)
    sol = solve("gpt2", "124_439_808", "d_e", hp)
    assert sol.best.value == 768 and sol.best.difference == 0  # GPT-2 small exactly
    # GPT-2 floors the head width (KerasHub's d_e // M): every d_e ≥ M is a model
    sol = solve("gpt2", "130M", "d_e", hp)
    assert sol.above.value == sol.below.value + 1
    assert sol.below.total < 130_000_000 < sol.above.total
    assert sol.below.total == _total("gpt2", d_e=sol.below.value, **hp)
    hp = dict(v=32000, M=32, M_kv=32, d_f=11008, L=32)
    sol = solve("llama", "7e9", "d_e", hp)
    assert sol.below.value % 32 == 0 and sol.above.value == sol.below.value + 32
    assert sol.below.total <= 7_000_000_000 <= sol.above.total


def test_layers_and_flags():
    sol = solve("gpt2", "124M", "L", dict(v=50257, n=1024, M=12, d_f=3072, d_e=768))
    assert (sol.below.value, sol.above.value) == (11, 12)
    sol = solve("lstm_lm", "1", "tied", dict(v=100, d_e=8, d_h=8, L=1))
    assert sol.above.value == 1 and sol.below is None  # tying is the smaller model


def test_target_below_the_smallest_model():
    sol = solve("gpt2", "10", "d_e", dict(v=50257, n=1024, M=12, d_f=3072, L=12))
    assert sol.below is None and sol.above.value == 12


def test_parse_target():
    assert parse_target("7e9") == parse_target("7B") == parse_target("7_000_000_000") == 7 * 10**9
    assert parse_target("6.7b") == 6_700_000_000 and parse_target("350M") == 350_000_000
    assert parse_target("1.5T") == 1_500_000_000_000
    for bad in ("seven", "-5", "0", "1.5", "7X"):
        with pytest.raises(HyperparameterError):
            parse_target(bad)


def test_errors():
    hp = dict(v=50257, n=1024, L=12, d_f=3072, d_e=768)
    # (GPT-2's count depends on M through the floored head width d_e // M; nanoGPT's fused
    # projection does not split by heads)
    with pytest.raises(HyperparameterError, match="does not depend on M"):
        solve("nanogpt", "1e8", "M", dict(v=50257, n=1024, L=12, d_e=768))
    with pytest.raises(HyperparameterError, match="fixed"):
        solve("gpt2", "1e8", "d_k", {**hp, "M": 12})
    with pytest.raises(HyperparameterError, match="missing"):
        solve("gpt2", "1e8", "d_e", dict(v=1))
    with pytest.raises(UnknownSymbolError):
        solve("gpt2", "1e8", "width", hp)
    assert main(["solve", "gpt2", "--target", "big", "--for", "d_e"]) == 2


def test_solve_cli_text_and_no_tensorflow():
    code = ("import sys; from paramcount.cli.main import main; "
            "rc = main(['solve', 'gpt2', '--target', '1.5e9', '--for', 'd_e', '--set', 'v=50257', "
            "'n=1024', 'M=25', 'd_f=6400', 'L=48']); "
            "assert 'tensorflow' not in sys.modules; sys.exit(rc)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # GPT-2 floors the head width (d_e // M), so every d_e is a model, not only multiples of M
    assert "nearest below: d_e = 1,556  total 1,499,846,876" in out.stdout
    assert "nearest above: d_e = 1,557  total 1,500,810,447" in out.stdout
    assert "valid d_e: positive integers" in out.stdout


# --- a mixture of experts: total and active budgets together ----------------------------------

MINIMAX_SHAPE = dict(v=200064, M=48, M_kv=8, d_k=128, L=62, E=256, k=8)


def test_solve_for_an_active_count():
    """of="active": the unknown whose active-per-token count (top-k of E experts) is nearest."""
    sol = solve("minimax_m2", "10e9", "d_fe", dict(MINIMAX_SHAPE, d_e=3072), of="active")
    assert (sol.best.value, sol.best.total) == (1311, 10_002_031_616)
    arch = registry.get("minimax_m2")
    hp = arch.resolve(sol.best.hparams)
    assert int(arch.formula.active_total().subs(arch.values(hp))) == sol.best.total


def test_how_wide_for_100b_total_at_10b_active(capsys):
    """With E, the top-k (and the shared experts) held: the width d_e and the expert width d_fe
    for 100B in all and 10B per token; each count exact, both nearest on either side."""
    from paramcount.analyze.solve_moe import solve_pair

    sol = solve_pair("minimax_m2", "100B", "10B", "d_e", "d_fe", MINIMAX_SHAPE)
    best = sol.best
    # d_fe = 359 holds over a run of widths along which the total rises: 5435 is the nearest
    # below on that run, 5436 the nearest above (the plateau's own crossing, not the first
    # crossing bisection meets, 5439/5440: 73M off)
    assert (best.value, best.inner.value) == (5435, 359)
    assert (best.total, best.inner.total) == (99_999_558_351, 9_996_219_231)
    assert sol.below is best and sol.above.value == 5436
    assert sol.below.total < 100e9 < sol.above.total
    arch = registry.get("minimax_m2")
    assert arch.count(arch.resolve(best.inner.hparams)) == best.total
    sets = [f"{k}={v}" for k, v in MINIMAX_SHAPE.items()]
    assert main(["solve", "minimax_m2", "--target", "100B", "--active", "10B", "--for", "d_e",
                 "--and", "d_fe", "--set", *sets, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["closest"] == {"d_e": 5435, "d_fe": 359, "total": 99_999_558_351,
                              "active": 9_996_219_231, "hparams": out["closest"]["hparams"]}


def test_a_total_out_of_reach_of_the_active_budget_says_none_above():
    """Granite 3 MoE routes 8 of 40 experts: a total cannot reach 10× the active count; the
    narrowest valid width is the nearest below, nothing is above."""
    from paramcount.analyze.solve_moe import solve_pair

    sol = solve_pair("granitemoe", "10B", "1B", "d_e", "d_fe",
                     dict(v=49155, M=24, M_kv=8, L=32, E=40, k=8))
    assert sol.above is None and sol.below.value == 48 and sol.below.total < 5e9


@pytest.mark.parametrize(("args", "message"), [
    (["minimax_m2", "--active", "10B"], "--active and --and go together"),
    (["olmo3", "--active", "1B", "--and", "d_f", "--preset", "olmo3_1025_7b"], "no experts"),
    (["minimax_m2", "--active", "200B", "--and", "d_fe"], "more than the --target"),
])
def test_bad_active_requests_are_one_line_exit_2(capsys, args, message):
    arch, *rest = args
    sets = [] if "--preset" in rest else ["--set", *(f"{k}={v}" for k, v in MINIMAX_SHAPE.items())]
    assert main(["solve", arch, "--target", "100B", "--for", "d_e", *rest, *sets]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_a_product_with_known_factors_sets_the_step():
    """Granite 4's x_in·d_e divisible by H_ssm: at x_in = 2, H_ssm = 128, d_e is a multiple of
    64, not only of M = 32 (so solve --active starts from a valid width)."""
    from paramcount.analyze.solve import _step
    from paramcount.analyze.solve_moe import solve_pair

    arch = registry.get("granitemoehybrid")
    given = dict(arch.preset("granite_4_0_h_small").hparams)
    assert _step(arch, symbols.get("d_e"), {k: x for k, x in given.items() if k != "d_e"}) == 64
    hp = arch.resolve(given)
    sol = solve_pair(arch, arch.count(hp), arch.count_active(hp), "d_e", "d_fe", given)
    assert (sol.best.value, sol.best.inner.value) == (4096, 768) and sol.step == 64


def test_the_pair_is_nearest_where_the_second_unknown_holds_over_several_widths():
    """The expert width nearest the active budget holds over a run of widths d_e, along which
    the total rises: DeepSeek-V3's own total and active count give back its own shape (7168,
    2048), exactly, and not a neighbour the bisection lands on first."""
    from paramcount.analyze.solve_moe import solve_pair

    arch = registry.get("deepseek_v3")
    given = dict(arch.preset("deepseek_v3").hparams)
    hp = arch.resolve(given)
    sol = solve_pair(arch, arch.count(hp), arch.count_active(hp), "d_e", "d_fe", given)
    assert (sol.best.value, sol.best.inner.value) == (7168, 2048)
    assert sol.best.total == arch.count(hp) and sol.best.inner.total == arch.count_active(hp)
    assert sol.below.total <= sol.target <= sol.above.total


# each MoE family of the frontier at a published set: (family, preset, the expert width)
MOE_FRONTIER = [
    ("deepseek_v2", "deepseek_v2_lite", "d_fe"), ("deepseek_v3", "deepseek_v3", "d_fe"),
    ("deepseek_v32", "deepseek_v3_2_exp", "d_fe"), ("llama4_text", "llama4_scout_17b_16e", "d_fe"),
    ("qwen3_next", "qwen3_next_80b_a3b", "d_fe"), ("glm4_moe", "glm_4_5_air", "d_fe"),
    ("minimax_m2", "minimax_m2", "d_fe"), ("olmoe", "olmoe_1b_7b_0924", "d_fe"),
    ("granitemoe", "granite_3_0_3b_a800m", "d_fe"),
    ("granitemoehybrid", "granite_4_0_h_small", "d_fe"), ("jamba", "jamba_v0_1", "d_fe"),
    ("nemotron_h", "tiny", "d_fe"), ("phimoe", "phi_3_5_moe", "d_f"),
    ("dbrx", "dbrx_base", "d_fe"), ("ernie4_5_moe", "ernie4_5_21b_a3b", "d_fe"),
]
# a few seconds each: the default run takes a sample, --runslow every family
_SAMPLED = {"granitemoehybrid", "phimoe", "olmoe"}  # DeepSeek-V3: the test above


@pytest.mark.parametrize("arch_id, preset, width", [
    pytest.param(*row, marks=() if row[0] in _SAMPLED else pytest.mark.slow)
    for row in MOE_FRONTIER])
def test_solve_active_gives_back_a_published_moe_shape(arch_id, preset, width):
    """solve --active on each MoE family: for the total and the active count of a published
    set, with E, the top-k and the shared experts held, the width and the expert width are that
    set's own, exactly."""
    from paramcount.analyze.solve_moe import solve_pair

    arch = registry.get(arch_id)
    given = dict(arch.preset(preset).hparams)
    hp = arch.resolve(given)
    total, active = arch.count(hp), arch.count_active(hp)
    assert active < total
    sol = solve_pair(arch, total, active, "d_e", width, given)
    assert (sol.best.value, sol.best.inner.value) == (hp["d_e"], hp[width])
    assert (sol.best.total, sol.best.inner.total) == (total, active)


def test_every_moe_family_of_the_frontier_is_in_the_solve_sample():
    frontier = {"deepseek_v2", "deepseek_v3", "deepseek_v32", "llama4_text", "qwen3_next",
                "glm4_moe", "minimax_m2", "olmoe", "granitemoe", "granitemoehybrid", "jamba",
                "nemotron_h", "phimoe", "dbrx", "ernie4_5_moe"}
    assert {row[0] for row in MOE_FRONTIER} == frontier
    assert all(registry.get(a).formula.has_active for a in frontier) and frontier >= _SAMPLED
