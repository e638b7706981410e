"""Context numbers: non-embedding parameters, rules of thumb, bytes (paramcount.analyze.context)."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

from paramcount.analyze import context
from paramcount.cli.main import main
from paramcount.model import registry
from paramcount.output import render

GPT2_SMALL = dict(v=50257, n=1024, d_e=768, M=12, d_f=3072, L=12)


def _ctx(arch_id, hp):
    arch = registry.get(arch_id)
    return context.context(arch, arch.resolve(hp))


def test_non_embedding_is_total_minus_token_and_position_tables():
    ctx = _ctx("gpt2", GPT2_SMALL)
    assert ctx.trainable == 124_439_808
    assert ctx.embedding == (50257 + 1024) * 768
    assert ctx.non_embedding == 124_439_808 - (50257 + 1024) * 768 == 85_056_000


def test_embedding_rule():
    assert context.is_embedding("bert.embeddings.token", registry.get("bert"))
    assert context.is_embedding("bert.embeddings.segment", registry.get("bert"))
    assert context.is_embedding("gpt2.embeddings.position", registry.get("gpt2"))
    assert not context.is_embedding("bert.embeddings.norm", registry.get("bert"))  # an embedding norm is not a table
    assert not context.is_embedding("albert.embeddings.projection", registry.get("albert"))
    assert not context.is_embedding("llama.head", registry.get("llama"))  # an untied head stays in N
    assert not context.is_embedding("gpt2.blocks.self_attention.query", registry.get("gpt2"))
    assert context.embedding_paths(registry.get("bert")) == [
        "bert.embeddings.token", "bert.embeddings.position", "bert.embeddings.segment"]


def test_kaplan_and_megatron_errors_are_exact():
    ctx = _ctx("gpt2", GPT2_SMALL)
    kaplan, megatron = ctx.approximations
    d, ell = 768, 12
    assert kaplan.value == 12 * ell * d * d
    assert kaplan.relative_error == Fraction(12 * ell * d * d - 85_056_000, 85_056_000)
    # GPT-2 is exactly the Megatron closed form plus its final layer norm (2·d_e)
    assert megatron.value == ctx.trainable - 2 * d
    assert megatron.relative_error == Fraction(-2 * d, ctx.trainable)


def test_rules_apply_to_gpt_style_stacks_only():
    assert context.rule_applies(registry.get("gpt2"))
    assert not context.rule_applies(registry.get("lstm_lm"))  # no attention
    for other in ("t5", "transformer", "mixtral"):  # cross-attention / router
        if other in registry.architectures():
            assert not context.rule_applies(registry.get(other)), other
    assert _ctx("lstm_lm", dict(v=100, d_e=8, d_h=8, L=1)).approximations == ()


def test_bytes():
    ctx = _ctx("gpt2", GPT2_SMALL)
    b = ctx.bytes()
    assert (b["fp32"], b["bf16"], b["int8"]) == (4 * 124_439_808, 2 * 124_439_808, 124_439_808)
    assert b["adam_fp32"] == 12 * 124_439_808


def test_count_shows_context(capsys):
    args = ["count", "gpt2"] + ["--set"] + [f"{k}={v}" for k, v in GPT2_SMALL.items()]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "non-embedding (Kaplan et al. 2020)" in out and "85,056,000" in out
    assert "Megatron-LM" in out and "-0.00123% vs total" in out
    assert "with Adam state (fp32 + 2 moments)" in out and "1,493,277,696 B" in out
    assert main([*args, "--json"]) == 0
    js = json.loads(capsys.readouterr().out)["context"]
    assert js["non_embedding"] == 85_056_000 and js["bytes"]["bf16"] == 248_879_616
    assert js["approximations"][0]["relative_error_exact"] == str(
        Fraction(12 * 12 * 768 * 768 - 85_056_000, 85_056_000))


def test_count_context_does_not_import_tensorflow():
    code = ("import sys; from paramcount.cli.main import main; "
            "rc = main(['count', 'gpt2', '--preset', 'gpt2_base_en', '--json']); "
            "assert 'tensorflow' not in sys.modules; sys.exit(rc)")
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)


def test_report_section():
    r = type("R", (), {"arch": "gpt2", "name": "gpt2_base_en",
                       "hparams": registry.get("gpt2").resolve(GPT2_SMALL)})()
    text = render.rules_of_thumb_section([r], {"gpt2": registry.get("gpt2")})
    assert text.startswith("## How good are the rules of thumb")
    row = "| gpt2 | gpt2_base_en | 124,439,808 | 85,056,000 (85.1M) | 84,934,656 | -0.143% |"
    assert row in text
